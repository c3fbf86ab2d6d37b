/**
 * The reference server: a bare Fastify hello-world (no logger, no plugins), the most a Fastify route
 * can do on this machine. `PORT` names the port.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
