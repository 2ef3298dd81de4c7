import { Gauge, type GaugeConfiguration, type Registry } from 'prom-client';

/**
 * A gauge read on scrape, registered in place of any of the same name: the embedded server's
 * gateway and worker, or a second set of gateway dependencies, share one registry.
 */
export function replaceScrapedGauge<L extends string>(registry: Registry, configuration: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  registry.removeSingleMetric(configuration.name);
  return new Gauge({ ...configuration, registers: [registry] });
}
