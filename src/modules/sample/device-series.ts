/** Which generated day of data each sample device sends (see series-houses.ts and series-field.ts). */
import { ANIMALS, type DeviceKey } from './data.ts';
import type { DeviceSeries, SampleClock } from './series.ts';
import {
  bolusSeries,
  guardianSeries,
  readerSeries,
  soilProbeSeries,
  trackerSeries,
  troughSeries,
  weatherSeries,
} from './series-field.ts';
import { broilerHouseSeries, layerHouseSeries } from './series-houses.ts';

export function seriesFor(key: DeviceKey, clock: SampleClock): DeviceSeries {
  const creek = { lat: 38.9562, lon: -92.3398 };
  switch (key) {
    case 'house1':
      return layerHouseSeries(clock);
    case 'house2':
      return broilerHouseSeries(clock);
    case 'bolus1':
      return bolusSeries(clock, key, { battery: 81, fever: false });
    case 'bolus2':
      return bolusSeries(clock, key, { battery: 76, fever: true });
    case 'bolus3':
      return bolusSeries(clock, key, { battery: 69, fever: false });
    case 'tag1':
      return trackerSeries(clock, key, { batteryFrom: 58.4, batteryTo: 57.9, at: creek });
    case 'tag2':
      return trackerSeries(clock, key, { batteryFrom: 44.2, batteryTo: 43.8, at: creek });
    case 'tag3':
      // Crosses the 15% watch line about 15 hours ago.
      return trackerSeries(clock, key, { batteryFrom: 16.4, batteryTo: 12.9, at: creek });
    case 'band1':
      return trackerSeries(clock, key, {
        batteryFrom: 63.1,
        batteryTo: 61.2,
        nightActive: true,
        at: { lat: 38.9469, lon: -92.3358 },
      });
    case 'guardian':
      return guardianSeries(clock);
    case 'trough':
      return troughSeries(clock);
    case 'weather':
      return weatherSeries(clock);
    case 'reader':
      return readerSeries(
        clock,
        ANIMALS.filter((a) => a.weighedKg !== undefined).map((a) => ({ kg: a.weighedKg ?? 0 })),
      );
    case 'soil':
      return soilProbeSeries(clock);
  }
}
