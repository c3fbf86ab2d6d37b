/**
 * `people invite` and `people list` as an operator runs them: real CLI processes on a real database, the
 * printed link used against the app on that database (the way in for anyone, and back in for an owner who
 * lost their password).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Invite, Person, Session } from '../src/modules/people/schemas.ts';
import { ENGINES, openApp, testConfig } from './harness.ts';
import { newEmail, PASSWORD, tokenOf } from './people.ts';
import { cli, createAccountDirect } from './processes.ts';

// Both engines at once (each engine's steps in order): most of the time is waiting on child processes.
describe('cli: people', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      test('people invite prints a one-time setup link that signs the person in; people list shows them; mistakes exit 2 or 1', async () => {
        const made = await testConfig(engine, {}, { migrated: true });
        const env: Record<string, string> = {
          FARMSTEAD_DATA: made.config.dataDir,
          FARMSTEAD_PUBLIC_URL: 'https://farm.example.com/',
        };
        if (made.config.databaseUrl) env.DATABASE_URL = made.config.databaseUrl;
        try {
          // Made in this process (`cli accounts create` is cli.test.ts's): the CLI under test here is people.
          const account = await createAccountDirect(env, 'CLI people');
          const email = newEmail('owner');
          const invited = await cli(
            [
              'people',
              'invite',
              '--account',
              account.account_id,
              '--email',
              email,
              '--role',
              'owner',
              '--json',
            ],
            env,
          );
          assert.equal(invited.code, 0, invited.stderr);
          const invite = JSON.parse(invited.stdout) as Invite;
          assert.equal(invite.email, email);
          assert.equal(invite.role, 'owner');
          assert.match(invite.url, /^https:\/\/farm\.example\.com\/setup\/[0-9A-Za-z]{43}$/);

          const text = await cli(
            ['people', 'invite', '--account', account.account_id, '--email', newEmail(), '--role', 'crew'],
            env,
          );
          assert.equal(text.code, 0, text.stderr);
          assert.match(text.stdout, /url\s+https:\/\/farm\.example\.com\/setup\//);
          assert.match(text.stderr, /once, within 24 hours/);

          const [badEmail, badRole, noAccount] = await Promise.all([
            cli(
              ['people', 'invite', '--account', account.account_id, '--email', 'nope', '--role', 'crew'],
              env,
            ),
            cli(
              ['people', 'invite', '--account', account.account_id, '--email', email, '--role', 'boss'],
              env,
            ),
            cli(['people', 'invite', '--account', 'acct_nobody', '--email', email, '--role', 'crew'], env),
          ]);
          assert.equal(badEmail.code, 2, badEmail.stderr);
          assert.match(badEmail.stderr, /--email/);
          assert.equal(badRole.code, 2);
          assert.equal(noAccount.code, 1);
          assert.match(noAccount.stderr, /No account with id "acct_nobody"/);

          const app = await openApp(engine, made.config, 'CLI');
          try {
            const setup = await app.request<Session>('POST', `/v1/setup/${tokenOf(invite.url)}`, {
              body: { password: PASSWORD },
            });
            assert.equal(setup.status, 200, JSON.stringify(setup.body));
            assert.equal(setup.body.person.role, 'owner');
            assert.equal(setup.body.account.id, account.account_id);
          } finally {
            await app.close();
          }
          const listed = await cli(['people', 'list', '--account', account.account_id, '--json'], env);
          assert.equal(listed.code, 0, listed.stderr);
          const people = JSON.parse(listed.stdout) as Person[];
          assert.deepEqual(
            people.map((p) => [p.email, p.role]),
            [[email, 'owner']],
          );
          const table = await cli(['people', 'list', '--account', account.account_id], env);
          assert.match(table.stdout, new RegExp(`${email.replace(/\./g, '\\.')}\\s+-\\s+owner`));
        } finally {
          await made.cleanup();
        }
      });
    });
  }
});
