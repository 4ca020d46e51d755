/**
 * The agents domain works through the payments ports and the access ports, plus its own. The agent
 * card is signed with the service key the payments ports carry (the ledger's, which signs receipts
 * too). Interfaces only.
 */
import type { TaskStore } from '@a2a-js/sdk/server';
import type { AccessPorts } from '../access';
import type { PaymentsPorts } from '../payments';

export interface AgentsPorts extends PaymentsPorts {
  /** The access domain's ports: unlocks (mandates, wallet access), access decisions and mandates over MCP and A2A. */
  access: AccessPorts;
  tasks: TaskStore;
}
