/** A farm's own alert rule. `direction` is stored as the API says it: above or below. */
export interface RulesTable {
  id: string;
  farm_id: string;
  name: string;
  kind: 'threshold' | 'rate';
  metric: string;
  direction: 'above' | 'below';
  watch: number;
  urgent: number | null;
  clear: number;
  device_type: string | null;
  device_id: string | null;
  group_id: string | null;
  for_s: number | null;
  /** Rate rules only: the signed change (metric's unit) within window_s that opens a watch alert. */
  change: number | null;
  window_s: number | null;
  /** 0 or 1. */
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** Where a sustained (`for_s`) condition stands for one rule and device. */
export interface AlertBreachesTable {
  device_id: string;
  rule: string;
  farm_id: string;
  since: number;
}

export interface RuleTables {
  rules: RulesTable;
  alert_breaches: AlertBreachesTable;
}
