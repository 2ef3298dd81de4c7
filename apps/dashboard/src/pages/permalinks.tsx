import type { PermalinkView } from '@promptpix/contracts';
import { BASE } from '../router';
import { Badge, Card, CopyField, EmptyState, Link, Loaded, PageHeader, formatDate, useResource } from '../ui';

export function PermalinksPage() {
  const permalinks = useResource<{ permalinks: PermalinkView[] }>(`${BASE}/api/permalinks`);
  return (
    <>
      <PageHeader title="Permalinks" description="Permanent image URLs you can put anywhere. Pin an image to choose what a permalink serves." />
      <Loaded
        resource={permalinks}
        label="Loading permalinks…"
        empty={(data) =>
          !data.permalinks.length && (
            <EmptyState title="No permalinks yet" icon="link">
              Open an image in <Link href={`${BASE}/images`}>Images</Link> and choose “Save as permalink”.
            </EmptyState>
          )
        }
      >
        {(data) => (
          <div class="stack">
            {data.permalinks.map((p) => {
              const pinned = p.images.find((i) => i.id === p.pinnedImageId) ?? p.images[0];
              return (
                <Card
                  key={p.name}
                  class="permalink-card"
                  title={<span class="code">{p.name}</span>}
                  actions={<Badge>{p.images.length === 1 ? '1 image' : `${p.images.length} images`}</Badge>}
                >
                  <div class="permalink-body">
                    <div class="permalink-hero">
                      {pinned ? <img src={pinned.url} alt={pinned.prompt} /> : <div class="thumb-empty">No image</div>}
                      <p class="muted small">{p.pinnedImageId ? 'Pinned image' : 'Newest image (none pinned)'}</p>
                    </div>
                    <div class="permalink-info">
                      <CopyField label="Permanent URL" value={p.url} />
                      <CopyField label="HTML snippet" value={p.snippet} multiline />
                      {p.images.length > 1 && (
                        <ul class="thumb-strip" aria-label={`Images in ${p.name}`}>
                          {p.images.map((i) => (
                            <li key={i.id} class={i.id === p.pinnedImageId ? 'is-pinned' : ''}>
                              <Link
                                href={`${BASE}/images/${encodeURIComponent(i.id)}`}
                                aria-label={`Open image from ${formatDate(i.createdAt)}: ${i.prompt}${i.id === p.pinnedImageId ? ' (pinned)' : ''}`}
                              >
                                <img src={i.url} alt="" loading="lazy" />
                              </Link>
                            </li>
                          ))}
                        </ul>
                      )}
                    </div>
                  </div>
                </Card>
              );
            })}
          </div>
        )}
      </Loaded>
    </>
  );
}
