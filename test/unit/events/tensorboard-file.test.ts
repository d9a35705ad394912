/**
 * TensorboardLogger jobs' event files, read back with a parser written from the formats'
 * descriptions (test/support/tfevents-reader.ts), not with the writer's code.
 */
import { describe, expect, it } from "vitest";
import { crc32c } from "../../../src/codec/crc32c.js";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { renderProjections } from "../../../src/events/projection-writer.js";
import { tbEventFilePath, tbRunName, type TbRunSubject } from "../../../src/events/projections/tensorboard-file.js";
import { variantLabel } from "../../../src/config/variant-label.js";
import { MAX_NAME_BYTES } from "../../../src/fs/portable-folder-name.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted, specRecord } from "../../support/events.js";
import { crc32cBitwise, readTbEvents } from "../../support/tfevents-reader.js";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

/** Seq and ts in order, one second apart. */
function stored(events: readonly NewEvent[]): StoredEvent[] {
  return events.map((e, i) => ({ seq: i + 1, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: new Date(T0 + i * 1000).toISOString(), data: e.data }) as StoredEvent);
}

/** RunStarted of `jobIds` whose `tbJobs` use TensorboardLogger. */
function startedWithTb(jobIds: readonly string[], tbJobs: readonly string[]): NewEvent {
  const started = structuredClone(runStarted(jobIds)) as unknown as { data: { matrix: { job_id: string; resolved_kwargs: { logger: string | null } }[] } };
  for (const spec of started.data.matrix) if (tbJobs.includes(spec.job_id)) spec.resolved_kwargs.logger = "TensorboardLogger";
  return started as unknown as NewEvent;
}

/** A run whose job `tb` uses TensorboardLogger with three iterations and provider-reported tokens; job `plain` uses the default logger. */
function tbRun(): StoredEvent[] {
  const started = startedWithTb(["tb", "plain"], ["tb"]);
  const job: NewEvent[] = finishedJob("tb", 1, -3).filter((e) => e.type !== "IterationCompleted" && e.type !== "LlmCallCompleted");
  const training = job.findIndex((e) => e.type === "JobTransitioned" && (e.data as { to: string }).to === "training") + 1;
  const call = (tokens: number): NewEvent => ({
    type: "LlmCallCompleted",
    job_id: "tb",
    data: { attempt: 1, role: "optimizer", model: "m", prompt_tokens: tokens - 10, completion_tokens: 10, total_tokens: tokens, latency_ms: 1, estimated: false },
  });
  const iteration = (step: number, score: number | null, best: number): NewEvent => ({
    type: "IterationCompleted",
    job_id: "tb",
    data: { attempt: 1, step, score, best_score: best, values: { value: step }, llm_calls: 1, evaluations: 2 },
  });
  job.splice(training, 0, call(100), iteration(1, -2, -2), call(120), iteration(2, null, -2), call(140), iteration(3, -0.25, -0.25));
  return stored([started, ...job, ...finishedJob("plain", 1, -1)]);
}

/** The stub's call (estimated tokens) moved before the iteration it led to. */
function callBeforeIteration(events: NewEvent[]): NewEvent[] {
  const it = events.findIndex((e) => e.type === "IterationCompleted");
  const call = events.findIndex((e) => e.type === "LlmCallCompleted");
  const out = [...events];
  [out[it], out[call]] = [events[call]!, events[it]!];
  return out;
}

describe("CRC-32C", () => {
  it("gives the standard check value for '123456789' (0xE3069283), like the test reader's bitwise one", () => {
    const bytes = new TextEncoder().encode("123456789");
    expect(crc32c(bytes)).toBe(0xe3069283);
    expect(crc32cBitwise(bytes)).toBe(0xe3069283);
  });
});

describe("TensorboardLogger event file", () => {
  const log = tbRun();
  const state = RunState.fold(log);
  const files = renderProjections(state);
  const tbFile = tbEventFilePath(state.jobs.get("tb")!.spec);

  it("is a valid TFRecord stream: file_version first, then one event per iteration with its step, time and scalars", () => {
    const bytes = files.get(tbFile);
    expect(bytes).toBeInstanceOf(Uint8Array);
    const events = readTbEvents(bytes as Uint8Array);
    const iterationTimes = log.filter((e) => e.type === "IterationCompleted").map((e) => Date.parse(e.ts) / 1000);
    expect(events[0]).toEqual({ wallTime: iterationTimes[0], step: 0, fileVersion: "brain.Event:2" });
    expect(events.slice(1)).toEqual([
      { wallTime: iterationTimes[0], step: 1, scalars: { score: -2, best_score: -2, llm_calls: 1, evaluations: 2, total_tokens: 100 } },
      // An iteration without a score has no score scalar.
      { wallTime: iterationTimes[1], step: 2, scalars: { best_score: -2, llm_calls: 1, evaluations: 2, total_tokens: 220 } },
      { wallTime: iterationTimes[2], step: 3, scalars: { score: -0.25, best_score: -0.25, llm_calls: 1, evaluations: 2, total_tokens: 360 } },
    ]);
  });

  it("exists only for TensorboardLogger jobs; estimated (stub) tokens are left out", () => {
    expect([...files.keys()].filter((p) => p.includes("tfevents"))).toEqual([tbFile]);
    const stub = stored([
      startedWithTb(["s"], ["s"]),
      ...callBeforeIteration(finishedJob("s", 1, -3)),
    ]);
    const stubState = RunState.fold(stub);
    const events = readTbEvents(renderProjections(stubState).get(tbEventFilePath(stubState.jobs.get("s")!.spec)) as Uint8Array);
    expect(events.map((e) => e.scalars && Object.keys(e.scalars))).toEqual([undefined, ["score", "best_score", "llm_calls", "evaluations"]]);
  });

  it("is a fold: the same bytes whether the events are applied one by one or all at once", () => {
    const incremental = new RunState();
    for (const event of log) incremental.apply(event);
    expect(Buffer.from(renderProjections(incremental).get(tbFile) as Uint8Array)).toEqual(Buffer.from(files.get(tbFile) as Uint8Array));
  });

  it("a flipped byte is caught by the reader's CRC check", () => {
    const damaged = Uint8Array.from(files.get(tbFile) as Uint8Array);
    damaged[damaged.length - 10]! ^= 0x01;
    expect(() => readTbEvents(damaged)).toThrow(/CRC mismatch/);
  });
});

describe("TensorBoard run names", () => {
  const job = (rawParams: Record<string, unknown>, extra: Partial<TbRunSubject> = {}): TbRunSubject => ({ ...specRecord("0123456789ab", "internal:numeric_param", "PrioritySearch", 1), raw_params: rawParams, ...extra });

  it("the event file lies in the job's tb/ (the row's tb_logdir), in a folder named after task, trainer, variant label and seed", () => {
    expect(tbEventFilePath(job({ ps_steps: 2 }))).toBe("jobs/0123456789ab/tb/internal-numeric_param__PrioritySearch__ps_steps=2__seed=1/events.out.tfevents.trace-bench");
    expect(tbRunName(job({}))).toBe("internal-numeric_param__PrioritySearch__default__seed=1");
    expect(tbRunName(job({ ps_steps: 2 }, { llm_model: "openai/gpt-4o-mini", seed: 3 }))).toBe("internal-numeric_param__PrioritySearch__ps_steps=2__seed=3__model=openai-gpt-4o-mini");
  });

  it("holds the variant label as results.csv's variant column has it, so TensorBoard's runs filter finds a variant by it", () => {
    for (const params of [{ ps_steps: 2 }, { ps_steps: 4 }, { ps_batches: 1, ps_steps: 2 }, { lr: 1e-5, optimizer: "OptoPrimeV2" }]) {
      expect(tbRunName(job(params))).toContain(`__${variantLabel(params)}__`);
    }
    expect(tbRunName(job({ ps_steps: 2 }))).not.toBe(tbRunName(job({ ps_steps: 4 })));
  });

  it("a label no file system takes as it is (quoted strings, slashes) is made portable, and stays one folder", () => {
    expect(tbRunName(job({ name: "a b/c" }))).toBe("internal-numeric_param__PrioritySearch__name='a_b-c'__seed=1");
    const doctored = tbEventFilePath(job({ p: "../../x" }, { task_id: "../../etc", trainer_id: "..\\..\\y" }));
    expect(doctored.split("/")).toHaveLength(5);
    expect(doctored.split("/")).not.toContain("..");
  });

  it("a long label gives way (cut, with a hash of it) so the name stays short and task, trainer and seed stay whole; distinct labels stay distinct", () => {
    const many = (last: number) => Object.fromEntries([...Array.from({ length: 12 }, (_, i) => [`parameter_number_${i}`, i] as const), ["zz_last", last]]);
    const [a, b] = [tbRunName(job(many(1), { seed: 12345 })), tbRunName(job(many(2), { seed: 12345 }))];
    // Whole, the name would not fit.
    expect(`internal-numeric_param__PrioritySearch__${variantLabel(many(1))}__seed=12345`.length).toBeGreaterThan(MAX_NAME_BYTES);
    for (const name of [a, b]) {
      expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(MAX_NAME_BYTES);
      expect(name).toMatch(/^internal-numeric_param__PrioritySearch__parameter_number_0=0,.*~[0-9a-f]{8}__seed=12345$/);
    }
    expect(a).not.toBe(b);
  });
});
