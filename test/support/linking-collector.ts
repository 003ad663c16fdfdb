/**
 * What a data provider's collector returns for a record that links images:
 * the simulator's data (deterministic, no network) plus `linked_images`, the
 * photo, banner or logo URLs a real record carries (e.g. Bright Data's
 * profile and company records), here pointing at a local CDN
 * (fake-cdn.ts). The scanning layer downloads them through the safe fetcher,
 * exactly as it does for any collector.
 */
import type { Collector, CollectRequest, CollectResult } from '../../src/scanning/collectors/collector.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import type { LinkedImage } from '../../src/domain/collected.js';

export class LinkingCollector implements Collector {
  readonly name = 'linking-test-collector';
  private readonly simulator = new SimulatorCollector({ delayMs: 0 });

  /** `links(request)`: the images the record of that request links to. */
  constructor(private readonly links: (request: CollectRequest) => LinkedImage[]) {}

  async collect(request: CollectRequest): Promise<CollectResult> {
    const result = await this.simulator.collect(request);
    if (result.outcome !== 'ok') return result;
    return { ...result, linked_images: this.links(request) };
  }
}
