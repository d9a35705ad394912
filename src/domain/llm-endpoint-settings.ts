/**
 * One role's LLM settings as the config writes them, for the LLM port: llm/ may import domain/ but
 * not config/, and the type is written once, in the config's types.
 */
export type { LlmEndpointConfig as LlmEndpointSettings } from "../config/run-config.js";
