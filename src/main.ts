/**
 * Entry point: `npm start` runs `serve`, `npm run cli -- <command>` the rest; `npm run cli` alone prints the
 * commands. The commands are in src/cli/ (program.ts lists them).
 */
import { runCli } from './cli/program.ts';

await runCli(process.argv.slice(2));
