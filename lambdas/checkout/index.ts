/**
 * The public face of the checkout domain. Nothing outside it needs its code yet: the routes
 * reach it through its handler, and card sales are read through payments.
 */
export type { CheckoutPorts, Protocol, SessionState } from './ports';
