/**
 * Each metric's name in words, in every language (issue 45: a person reads "Body temperature", never
 * `body.temp_c`). Keyed by metric, so a metric or a language missing here fails to compile; the console's
 * chart pages load it (types only from metrics.ts, so not the table).
 */
import type { LanguageName } from './display-units.ts';
import type { MetricName } from './metrics.ts';

export const METRIC_TERMS: Readonly<Record<MetricName, Readonly<Record<LanguageName, string>>>> = {
  'feed.bin_pct': { en: 'Feed bin', es: 'Tolva de pienso' },
  'feed.dispensed_kg': { en: 'Feed dispensed', es: 'Pienso servido' },
  'water.tank_pct': { en: 'Water tank', es: 'Depósito de agua' },
  'water.used_l': { en: 'Water used', es: 'Agua consumida' },
  'climate.temp_c': { en: 'Air temperature', es: 'Temperatura del aire' },
  'climate.humidity_pct': { en: 'Humidity', es: 'Humedad' },
  'climate.nh3_ppm': { en: 'Ammonia', es: 'Amoníaco' },
  'climate.co2_ppm': { en: 'Carbon dioxide', es: 'Dióxido de carbono' },
  'power.battery_pct': { en: 'House battery', es: 'Batería del gallinero' },
  'power.solar_w': { en: 'Solar power', es: 'Energía solar' },
  'power.load_w': { en: 'Power used', es: 'Consumo eléctrico' },
  'move.distance_m': { en: 'Distance moved', es: 'Distancia recorrida' },
  'birds.inside': { en: 'Birds inside', es: 'Aves dentro' },
  'body.temp_c': { en: 'Body temperature', es: 'Temperatura corporal' },
  'rumination.min': { en: 'Rumination', es: 'Rumia' },
  'activity.index': { en: 'Activity', es: 'Actividad' },
  'weight.kg': { en: 'Weight', es: 'Peso' },
  'water.flow_lpm': { en: 'Water flow', es: 'Caudal de agua' },
  'rain.mm': { en: 'Rain', es: 'Lluvia' },
  'wind.kph': { en: 'Wind speed', es: 'Velocidad del viento' },
  'device.battery_pct': { en: 'Device battery', es: 'Batería del dispositivo' },
};

/** A metric's name in a language; a metric the product does not know (devices may report any) as its code. */
export function metricTerm(language: LanguageName, metric: string): string {
  const terms = Object.hasOwn(METRIC_TERMS, metric) ? METRIC_TERMS[metric as MetricName] : null;
  return terms?.[language] ?? terms?.en ?? metric;
}
