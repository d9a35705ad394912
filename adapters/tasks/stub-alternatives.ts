/** The built-in tasks' alternatives for their text and code parameters, which the stub LLM proposes in mode stub. */
import type { StubAlternatives } from "../llm/stub-llm.js";
import { codeParamStubAlternatives } from "./internal/code-param.js";
import { greetingStubAlternatives } from "./trace_examples/greeting-stub.js";

export const BUILTIN_STUB_ALTERNATIVES: StubAlternatives = { ...codeParamStubAlternatives, ...greetingStubAlternatives };
