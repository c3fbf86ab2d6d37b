/** Options several commands share, their help naming ids with the prefixes the record-kind table gives. */
import { Option } from 'commander';
import { RECORD_KINDS } from '../domain/record-kinds.ts';

/** `--account <id>`, required: the account the command acts on. */
export const accountOption = (): Option =>
  new Option('--account <id>', `the account (${RECORD_KINDS.account.prefix}_…)`).makeOptionMandatory();

/** `--farm <id>`, required: the farm the command acts on. */
export const farmOption = (): Option =>
  new Option('--farm <id>', `the farm (${RECORD_KINDS.farm.prefix}_…)`).makeOptionMandatory();
