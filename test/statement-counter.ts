/** Counts the statements run through a Kysely instance (and its transactions): `db.withPlugin(counter)`. */
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

export class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  // Every statement run, built by Kysely or compiled once (prepared.ts): each result passes here. A plugin's
  // database is not the one openDatabase registered, so its statements all go through Kysely
  // (db/sqlite-direct.ts); BEGIN and COMMIT are the driver's and are not counted.
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return args.result;
  }
}
