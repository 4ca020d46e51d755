/** The public face of the agents domain. No other domain depends on it; it sits at the top of the stack. */
export { MCP_SERVER } from './mcp';
export { A2A_PROTOCOL_VERSION } from './agent-card';
