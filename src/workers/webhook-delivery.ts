/**
 * The webhook delivery loop: webhook deliveries as a kind of the one delivery queue (the kind:
 * modules/webhooks/delivery.ts `webhookDeliveries`; the loop: delivery-loop.ts). Each turn dispatches new
 * outbox events into deliveries and keeps up to FARMSTEAD_WEBHOOK_CONCURRENCY sends in flight, at most
 * PER_WEBHOOK_CONCURRENCY of them to any one webhook.
 */
import { webhookDeliveries } from '../modules/webhooks/delivery.ts';
import { deliveryJob } from './delivery-loop.ts';

export const webhookDeliveryJob = deliveryJob({
  name: 'webhooks.deliver',
  kind: webhookDeliveries,
  enabled: (config) => config.webhookWorkerInProcess,
});
