import { Gauge, type GaugeConfiguration } from 'prom-client';
import type { Metrics } from './metrics';

/**
 * A gauge read on scrape, registered in place of any of the same name: the embedded server's
 * gateway and worker, or a second set of gateway dependencies, share one registry.
 */
export function replaceScrapedGauge<L extends string>(metrics: Metrics, configuration: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  metrics.registry.removeSingleMetric(configuration.name);
  return new Gauge({ ...configuration, registers: [metrics.registry] });
}
