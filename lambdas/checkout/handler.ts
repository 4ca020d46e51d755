/**
 * Lambda entry of the checkout domain: ACP and UCP checkout sessions for the card packs, the
 * Stripe webhook that turns a paid session into a card sale, and the success page's delivery.
 */
import { createDomainHandler } from '../platform/domain-handler';
import { ACP_FACE } from './core/acp';
import { UCP_FACE } from './core/ucp';
import { getAcpDiscovery, getUcpProfile } from './discovery';
import { cancelRoute, completeRoute, createRoute, getRoute, updateRoute } from './protocol-routes';
import { getCheckoutDelivery } from './delivery';
import { postStripeWebhook } from './webhook';

export const handler = createDomainHandler('checkout', {
  routes: {
    createAcpCheckout: createRoute(ACP_FACE),
    getAcpCheckout: getRoute(ACP_FACE),
    updateAcpCheckout: updateRoute(ACP_FACE),
    completeAcpCheckout: completeRoute(ACP_FACE),
    cancelAcpCheckout: cancelRoute(ACP_FACE),
    createUcpCheckout: createRoute(UCP_FACE),
    getUcpCheckout: getRoute(UCP_FACE),
    updateUcpCheckout: updateRoute(UCP_FACE),
    completeUcpCheckout: completeRoute(UCP_FACE),
    cancelUcpCheckout: cancelRoute(UCP_FACE),
    postStripeWebhook,
    getCheckoutDelivery,
    getAcpDiscovery,
    getUcpProfile,
  },
  ports: () => import('./wiring').then((m) => m.checkoutPortsFromEnv()),
});
