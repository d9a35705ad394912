/** The llm columns: the run's (RunStarted), and one job's, with its own model when the config lists several. */
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { llmInfo } from "../../../src/engine/run-environment.js";
import { jobLlmInfo } from "../../../src/events/projections/job-llm-info.js";

describe("jobLlmInfo", () => {
  const run = { llm_provider: "openai", llm_model: "", llm_base_url: "http://x/v1", llm_agent_model: "" };

  it("a job of a model list: its model for the optimizer and, unless llm.agent.model set one, the agent", () => {
    expect(jobLlmInfo(run, { llm_model: "a" })).toEqual({ ...run, llm_model: "a", llm_agent_model: "a" });
    expect(jobLlmInfo({ ...run, llm_agent_model: "judge" }, { llm_model: "a" })).toEqual({ ...run, llm_model: "a", llm_agent_model: "judge" });
  });

  it("a single-model run's job: the run's columns as they are", () => {
    const single = { llm_provider: "openai", llm_model: "gpt-4o", llm_base_url: "", llm_agent_model: "gpt-4o-mini" };
    expect(jobLlmInfo(single, {})).toBe(single);
  });
});

describe("llmInfo (RunStarted's llm columns) with a model list", () => {
  const config = (text: string) => resolveRunConfig(parseConfigText("c.yaml", `tasks: [internal:numeric_param]\n${text}`)).config;

  it("leaves the models each job's own; an agent model set apart is kept", () => {
    expect(llmInfo(config("mode: real\nllm: {model: [a, b], base_url: 'http://x/v1'}\n"), {})).toEqual({ llm_provider: "openai", llm_model: "", llm_base_url: "http://x/v1", llm_agent_model: "" });
    expect(llmInfo(config("mode: real\nllm: {model: [a, b], agent: {model: judge}}\n"), {}).llm_agent_model).toBe("judge");
    expect(llmInfo(config("llm: {model: [a, b]}\n"), {})).toEqual({ llm_provider: "stub", llm_model: "", llm_base_url: "", llm_agent_model: "" });
  });

  it("a list of one is the single model", () => {
    expect(llmInfo(config("mode: real\nllm: {model: [a]}\n"), {})).toMatchObject({ llm_model: "a", llm_agent_model: "a" });
    expect(llmInfo(config("llm: {model: [a]}\n"), {})).toMatchObject({ llm_model: "stub" });
  });
});
