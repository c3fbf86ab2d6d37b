/**
 * The alert words' terms (issue 45): the built-in rules' titles and measures, the device alarms' names, the
 * intake measures and the device types an alert names, in every language. Plain words, no
 * placeholders: an alert's words name a term for a parameter (alert-words.ts `terms`), and the console's
 * rules settings write each built-in rule by its title and measure. Apart from the alert sentences
 * (alert-words.ts, which imports these) so a page that shows only the terms loads only them.
 */
import type { LanguageName } from './display-units.ts';

const en = {
  'rule.house.ammonia.title': 'High ammonia',
  'rule.house.ammonia.measure': 'Ammonia',
  'rule.house.heat.title': 'High temperature',
  'rule.house.heat.measure': 'Temperature',
  'rule.house.feed.title': 'Feed running low',
  'rule.house.feed.measure': 'Feed bin',
  'rule.water.level.title': 'Water running low',
  'rule.water.level.measure': 'Water level',
  'rule.house.battery.title': 'House battery low',
  'rule.house.battery.measure': 'House battery',
  'rule.animal.fever.title': 'Raised temperature',
  'rule.animal.fever.measure': 'Body temperature',
  'rule.device.battery.title': 'Device battery low',
  'rule.device.battery.measure': 'Battery',
  'rule.water.leak.title': 'Water dropping fast',
  'rule.water.leak.measure': 'Water level',
  'rule.device.clock.title': 'Clock ahead',
  'rule.device.quiet.title': 'Device quiet',
  'rule.group.intake_drop.title': 'Intake dropped',
  'alarm.predator.detected.title': 'Predator detected',
  'alarm.safety_edge.stop.title': 'Safety edge stopped the house',
  'alarm.door.jammed.title': 'Pop door jammed',
  'intake.water.used_l': 'Water per head',
  'intake.feed.dispensed_kg': 'Feed per head',
  'device_type.house': 'house',
  'device_type.guardian': 'guardian',
} as const;

export type AlertTermKey = keyof typeof en;

const es: Record<AlertTermKey, string> = {
  'rule.house.ammonia.title': 'Amoníaco alto',
  'rule.house.ammonia.measure': 'Amoníaco',
  'rule.house.heat.title': 'Temperatura alta',
  'rule.house.heat.measure': 'Temperatura',
  'rule.house.feed.title': 'Queda poco pienso',
  'rule.house.feed.measure': 'Tolva de pienso',
  'rule.water.level.title': 'Queda poca agua',
  'rule.water.level.measure': 'Nivel de agua',
  'rule.house.battery.title': 'Batería del gallinero baja',
  'rule.house.battery.measure': 'Batería del gallinero',
  'rule.animal.fever.title': 'Temperatura elevada',
  'rule.animal.fever.measure': 'Temperatura corporal',
  'rule.device.battery.title': 'Batería del dispositivo baja',
  'rule.device.battery.measure': 'Batería',
  'rule.water.leak.title': 'El agua baja rápido',
  'rule.water.leak.measure': 'Nivel de agua',
  'rule.device.clock.title': 'Reloj adelantado',
  'rule.device.quiet.title': 'Dispositivo sin reportar',
  'rule.group.intake_drop.title': 'Consumo en descenso',
  'alarm.predator.detected.title': 'Depredador detectado',
  'alarm.safety_edge.stop.title': 'El borde de seguridad detuvo el gallinero',
  'alarm.door.jammed.title': 'Trampilla atascada',
  'intake.water.used_l': 'agua por cabeza',
  'intake.feed.dispensed_kg': 'pienso por cabeza',
  'device_type.house': 'gallinero',
  'device_type.guardian': 'guardián',
};

/** Every language's terms: English is the source; each language has every key. */
export const ALERT_TERMS: Readonly<Record<LanguageName, Readonly<Record<AlertTermKey, string>>>> = { en, es };

/** A term in a language ("Amoníaco alto" for `rule.house.ammonia.title`), or null when there is no such term. */
export function alertTerm(language: LanguageName, key: string): string | null {
  const terms: Readonly<Record<string, string>> = ALERT_TERMS[language] ?? ALERT_TERMS.en;
  return terms[key] ?? null;
}

/**
 * A built-in rule's title in a language ("Amoníaco alto" for `house.ammonia`; a device alarm's, as
 * `door.jammed`, "Trampilla atascada"); null for a farm's own rule.
 */
export function ruleTitle(language: LanguageName, rule: string): string | null {
  return alertTerm(language, `rule.${rule}.title`) ?? alertTerm(language, `alarm.${rule}.title`);
}
