/**
 * People from the operator's side: invite anyone to the console with a one-time setup link, and list who
 * can sign in. The invite is also the way back in for an owner who lost their password: a link for their
 * own email sets a new one. Same service as POST /v1/people/invites; links use FARMSTEAD_PUBLIC_URL when it
 * is set, else the address the running server recorded (db/server-facts.ts), else HOST and PORT.
 */
import { type Command, Option } from 'commander';
import { accountOption } from './options.ts';
import { printJson, printRecord, printTable, UsageError } from './output.ts';

/** Loaded when a command runs, so `--help` does not load the whole service. */
const load = async () => ({
  ...(await import('./database.ts')),
  ...(await import('../modules/people/links.ts')),
  ...(await import('../modules/people/admin.ts')),
  isEmailAddress: (await import('../modules/people/email.ts')).isEmailAddress,
  requireAccount: (await import('../modules/accounts/lookup.ts')).requireAccount,
  loadConfig: (await import('../config.ts')).loadConfig,
  serverFact: (await import('../db/server-facts.ts')).serverFact,
});

export function registerPeople(program: Command): void {
  const people = program
    .command('people')
    .description('invite people to the console (setup links) and list who can sign in');

  people
    .command('invite')
    .description(
      'print a one-time setup link (24 hours) for this email and role; for an existing person it sets a new password',
    )
    .addOption(accountOption())
    .requiredOption('--email <email>', "the person's email")
    .addOption(new Option('--role <role>', 'owner or crew').choices(['owner', 'crew']).makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (options: { account: string; email: string; role: 'owner' | 'crew'; json?: boolean }) => {
      const { isEmailAddress, invitePerson, loadConfig, requireAccount, serverFact, withDatabase } =
        await load();
      if (!isEmailAddress(options.email)) {
        throw new UsageError(`--email must be an email address, got "${options.email}"`);
      }
      const config = loadConfig();
      const invite = await withDatabase(async (database) => {
        await requireAccount(database.db, options.account);
        // The address the server serves at, as it recorded it, unless FARMSTEAD_PUBLIC_URL says otherwise
        // here: this process's PORT need not be the server's.
        const publicUrl = config.publicUrlGiven
          ? config.publicUrl
          : ((await serverFact(database.db, 'public_url')) ?? config.publicUrl);
        return invitePerson(
          database.db,
          options.account,
          { email: options.email, role: options.role },
          publicUrl,
          Date.now(),
        );
      });
      if (options.json) printJson(invite);
      else {
        printRecord({
          email: invite.email,
          role: invite.role,
          expires_at: invite.expires_at,
          url: invite.url,
        });
        process.stderr.write('Hand this link to the person: it works once, within 24 hours.\n');
      }
    });

  people
    .command('list')
    .description("the account's people and their roles")
    .addOption(accountOption())
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const { peopleOfAccount, requireAccount, withDatabase } = await load();
      const list = await withDatabase(async (database) => {
        await requireAccount(database.db, options.account);
        return peopleOfAccount(database.db, options.account);
      });
      if (options.json) printJson(list.data);
      else
        printTable(
          list.data as unknown as Record<string, unknown>[],
          ['id', 'email', 'name', 'role', 'created_at', 'last_sign_in_at'],
          '(no people yet: invite one with `people invite`)',
        );
    });
}
