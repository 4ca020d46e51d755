/** The public face of the discovery domain: the ESP cycle of a skill, which the agent surfaces serve too. */
export { ESP_PROTOCOL_VERSION, espCycle, type EspCyclePorts } from './esp-cycle';
