import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_records.ts';
import * as m0003 from './0003_devices.ts';
import * as m0004 from './0004_alerts.ts';
import * as m0005 from './0005_webhooks.ts';
import * as m0006 from './0006_readings_partitions.ts';
import * as m0007 from './0007_repair_non_finite.ts';
import * as m0008 from './0008_key_permissions.ts';
import * as m0010 from './0010_idempotency.ts';
import * as m0011 from './0011_command_redelivery.ts';
import * as m0012 from './0012_rules.ts';
import * as m0013 from './0013_people.ts';
import * as m0014 from './0014_quiet_devices.ts';
import * as m0017 from './0017_outbox_stream.ts';
import * as m0019 from './0019_watermark_previous.ts';
import * as m0020 from './0020_rules_version.ts';
import * as m0021 from './0021_readings_value_index.ts';
import * as m0022 from './0022_device_report_token.ts';
import * as m0023 from './0023_readings_trust.ts';
import * as m0025 from './0025_integrations.ts';
import * as m0026 from './0026_animals_farm_tag.ts';
import * as m0027 from './0027_task_due_date.ts';
import * as m0028 from './0028_notifications.ts';
import * as m0029 from './0029_oauth.ts';
import * as m0030 from './0030_device_positions.ts';
import * as m0031 from './0031_grazing.ts';
import * as m0032 from './0032_animal_changes.ts';
import * as m0034 from './0034_channel_targets.ts';
import * as m0036 from './0036_uplink_keys_by_device.ts';
import * as m0037 from './0037_eid_iso.ts';
import * as m0038 from './0038_herd_book.ts';
import * as m0040 from './0040_server_facts.ts';
import * as m0041 from './0041_movements.ts';
import * as m0042 from './0042_medicine_low_stock.ts';
import * as m0043 from './0043_person_preferences.ts';
import * as m0044 from './0044_weigh_sessions.ts';
import * as m0045 from './0045_breeding.ts';
import * as m0046 from './0046_mqtt_report_keys.ts';
import * as m0047 from './0047_alert_words.ts';
import * as m0048 from './0048_devices_hot_updates.ts';
import * as m0049 from './0049_breeding_zone.ts';
import * as m0050 from './0050_device_status_at.ts';

/** Every migration, in order. Names sort in the order they run; both engines run the same list. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_records': m0002,
  '0003_devices': m0003,
  '0004_alerts': m0004,
  '0005_webhooks': m0005,
  '0006_readings_partitions': m0006,
  '0007_repair_non_finite': m0007,
  '0008_key_permissions': m0008,
  '0010_idempotency': m0010,
  '0011_command_redelivery': m0011,
  '0012_rules': m0012,
  '0013_people': m0013,
  '0014_quiet_devices': m0014,
  '0017_outbox_stream': m0017,
  '0019_watermark_previous': m0019,
  '0020_rules_version': m0020,
  '0021_readings_value_index': m0021,
  '0022_device_report_token': m0022,
  '0023_readings_trust': m0023,
  '0025_integrations': m0025,
  '0026_animals_farm_tag': m0026,
  '0027_task_due_date': m0027,
  '0028_notifications': m0028,
  '0029_oauth': m0029,
  '0030_device_positions': m0030,
  '0031_grazing': m0031,
  '0032_animal_changes': m0032,
  '0034_channel_targets': m0034,
  '0036_uplink_keys_by_device': m0036,
  '0037_eid_iso': m0037,
  '0038_herd_book': m0038,
  '0040_server_facts': m0040,
  '0041_movements': m0041,
  '0042_medicine_low_stock': m0042,
  '0043_person_preferences': m0043,
  '0044_weigh_sessions': m0044,
  '0045_breeding': m0045,
  '0046_mqtt_report_keys': m0046,
  '0047_alert_words': m0047,
  '0048_devices_hot_updates': m0048,
  '0049_breeding_zone': m0049,
  '0050_device_status_at': m0050,
};
