import { useState } from 'preact/hooks';
import type { FailedJobPage, FailedJobRetried, FailedJobView, UsageDay, UsageView } from '@promptpix/contracts';
import { api } from '../api';
import { BASE } from '../router';
import { Card, ErrorAlert, Field, JobProgress, Link, Loaded, PageHeader, formatDate, formatNumber, useAction, useJob, useResource } from '../ui';

const PLAN_LABEL: Record<string, string> = { free: 'Free', hobby: 'Hobby', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

type Metric = keyof Omit<UsageDay, 'date'>;

/** The charts under the stats, in order: a metric of the days, its label and its colour. */
const CHARTS: Array<{ metric: Metric; label: string; tone: string }> = [
  { metric: 'generations', label: 'Generations', tone: 'accent' },
  { metric: 'cacheHits', label: 'Cache hits', tone: 'teal' },
  { metric: 'impressions', label: 'Impressions', tone: 'amber' },
  { metric: 'clicks', label: 'Clicks', tone: 'rose' },
];

/** A bar per day, drawn as inline SVG; each bar has a <title>, the chart a summary label. */
function BarChart({ days, metric, label, tone }: { days: UsageDay[]; metric: Metric; label: string; tone: string }) {
  const values = days.map((d) => d[metric]);
  const max = Math.max(1, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const width = 600;
  const height = 140;
  const gap = days.length > 45 ? 1 : 3;
  const bar = Math.max(1, (width - gap * (days.length - 1)) / Math.max(1, days.length));
  const peakDay = days[values.indexOf(Math.max(...values))];
  const summary = `${label}: ${formatNumber(total)} in ${days.length} days${total ? `, peak ${formatNumber(max)} on ${peakDay ? formatDate(peakDay.date) : ''}` : ''}.`;
  return (
    <figure class="chart">
      <figcaption>
        <span>{label}</span>
        <strong>{formatNumber(total)}</strong>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="none" class={`chart-svg tone-${tone}`}>
        <title>{summary}</title>
        <line x1="0" x2={width} y1={height} y2={height} class="chart-axis" />
        <line x1="0" x2={width} y1={height / 2} y2={height / 2} class="chart-grid" />
        <line x1="0" x2={width} y1="1" y2="1" class="chart-grid" />
        {days.map((d, i) => {
          const h = (d[metric] / max) * (height - 4);
          return (
            <rect
              key={d.date}
              x={i * (bar + gap)}
              y={height - h}
              width={bar}
              height={Math.max(h, d[metric] ? 2 : 0)}
              rx={Math.min(3, bar / 3)}
              class="chart-bar"
            >
              <title>{`${formatDate(d.date)}: ${formatNumber(d[metric])} ${label.toLowerCase()}`}</title>
            </rect>
          );
        })}
      </svg>
      {days.length > 0 && (
        <p class="chart-scale muted small" aria-hidden="true">
          <span>{formatDate(days[0].date)}</span>
          <span>max {formatNumber(max)} / day</span>
          <span>{formatDate(days[days.length - 1].date)}</span>
        </p>
      )}
    </figure>
  );
}

/**
 * A failed job's Retry: a new job for the same request (a fresh generation counts toward the
 * quota), followed to its end with a link to the new image; once per failed job.
 */
function RetryFailedJob({ job, onRetried }: { job: FailedJobView; onRetried: (retriedAs: string) => void }) {
  const { job: retry, restart, follow } = useJob();
  const { busy, error, run } = useAction();
  const start = () => {
    restart();
    return run(async () => {
      const retried = await api<FailedJobRetried>('POST', `${BASE}/api/failed-jobs/${encodeURIComponent(job.jobId)}/retry`);
      onRetried(retried.jobId);
      await follow(retried.jobId);
    });
  };
  if (job.retriedAs && !busy && !retry) return <span class="muted small">Retried</span>;
  return (
    <div class="failed-job-retry" aria-live="polite">
      {!job.retriedAs && (
        <button type="button" class="btn btn-secondary btn-small" disabled={busy} onClick={() => void start()} aria-label={`Retry the job “${job.prompt}”`}>
          {busy ? 'Retrying…' : 'Retry'}
        </button>
      )}
      {retry && <JobProgress job={retry} />}
      {retry?.status === 'failed' && <p class="alert alert-error">The retry failed: {retry.error ?? 'unknown error'}</p>}
      {retry?.status === 'completed' && retry.imageId && <Link href={`${BASE}/images/${encodeURIComponent(retry.imageId)}`}>Open the new image</Link>}
      <ErrorAlert error={error} />
    </div>
  );
}

/** The account's jobs that failed for good (newest first), with the reason each caller read and a Retry; a failed job is not charged. */
function FailedJobs({ onRetried }: { onRetried: () => void }) {
  const failed = useResource<FailedJobPage>(`${BASE}/api/failed-jobs?limit=20`);
  const markRetried = (jobId: string, retriedAs: string) => {
    onRetried();
    failed.setData((page) => ({
      nextCursor: page?.nextCursor ?? null,
      data: (page?.data ?? []).map((j) => (j.jobId === jobId ? { ...j, retriedAs, retriedAt: new Date().toISOString() } : j)),
    }));
  };
  return (
    <Card title="Failed jobs">
      <Loaded
        resource={failed}
        label="Loading failed jobs…"
        empty={(page) => page.data.length === 0 && <p class="muted">No failed jobs. A job that fails is not charged.</p>}
      >
        {(page) => (
          <>
            <p class="muted small">
              A job that fails is not charged. Retry starts a new job for the same request; it counts toward your quota like any new generation.
            </p>
            <div class="table-wrap">
              <table class="table">
                <caption class="sr-only">Failed jobs, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Failed</th>
                    <th scope="col">Prompt</th>
                    <th scope="col">Model</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Retry</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((job) => (
                    <tr key={job.jobId}>
                      <td data-label="Failed">{formatDate(job.failedAt, true)}</td>
                      <td data-label="Prompt">{job.prompt}</td>
                      <td data-label="Model" class="code">
                        {job.model}
                      </td>
                      <td data-label="Reason">{job.reason}</td>
                      <td data-label="Retry">
                        <RetryFailedJob job={job} onRetried={(retriedAs) => markRetried(job.jobId, retriedAs)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Loaded>
    </Card>
  );
}

export function UsagePage() {
  const [days, setDays] = useState(30);
  const usage = useResource<UsageView>(`${BASE}/api/usage?days=${days}`);
  const quota = usage.data?.quota;
  const percent = quota ? Math.min(100, Math.round((quota.used / Math.max(1, quota.limit)) * 100)) : 0;
  return (
    <>
      <PageHeader
        title="Usage"
        description="Generations count toward your monthly quota; cache hits, impressions and clicks are free."
        actions={
          <div class="inline-form">
            <Field label="Period">
              {(p) => (
                <select {...p} value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
                  <option value="7">Last 7 days</option>
                  <option value="30">Last 30 days</option>
                  <option value="90">Last 90 days</option>
                </select>
              )}
            </Field>
            <a class="btn btn-secondary" href={`${BASE}/api/usage.csv?days=${days}`} download={`promptpix-usage-${days}d.csv`}>
              Export CSV
            </a>
          </div>
        }
      />
      <Loaded resource={usage} label="Loading usage…">
        {(data) => (
          <>
            <div class="stats">
              <Card class="stat stat-quota">
                <p class="stat-label">Generations this period</p>
                <p class="stat-value">
                  {formatNumber(data.quota.used)} <span class="muted">/ {formatNumber(data.quota.limit)}</span>
                </p>
                <div
                  class={`progress${percent >= 90 ? ' is-high' : ''}`}
                  role="progressbar"
                  aria-label="Quota used"
                  aria-valuemin={0}
                  aria-valuemax={data.quota.limit}
                  aria-valuenow={data.quota.used}
                  aria-valuetext={`${percent}% of the quota used`}
                >
                  <span style={{ width: `${percent}%` }} />
                </div>
                <p class="muted small">
                  {percent}% used · resets {formatDate(data.quota.resetAt)}
                </p>
              </Card>
              <Card class="stat">
                <p class="stat-label">Plan</p>
                <p class="stat-value">{PLAN_LABEL[data.plan] ?? data.plan}</p>
                <p class="muted small">{formatNumber(data.quota.limit)} generations a month</p>
              </Card>
              <Card class="stat">
                <p class="stat-label">Rate limit</p>
                <p class="stat-value">
                  {formatNumber(data.rateLimit.requestsPerMinute)} <span class="muted">/ min</span>
                </p>
                <p class="muted small">Requests per minute per key</p>
              </Card>
            </div>
            <div class="charts">
              {CHARTS.map((chart) => (
                <Card key={chart.metric}>
                  <BarChart days={data.daily} {...chart} />
                </Card>
              ))}
            </div>
          </>
        )}
      </Loaded>
      {/* A retry's fresh generation takes a quota unit: the stats above read it again. */}
      <FailedJobs onRetried={usage.reload} />
    </>
  );
}
