/**
 * Hand-written rows in the schemas of the hf datasets (made up for the tests, not copied from
 * the datasets), and helpers that lay them out as a data directory or a HuggingFace hub cache.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { TaskLlm, TaskLlmRequest } from "../../src/domain/task-llm.js";
import { writeParquet, type ParquetColumn } from "./hf-parquet-writer.js";

export const GSM8K_TRAIN = [
  { question: "Tom has 3 boxes of 4 pens. How many pens?", answer: "3 boxes * 4 = 12 pens.\n#### 12" },
  { question: "A cake costs $5. Two cakes?", answer: "2 * 5 = 10\n#### 10" },
  { question: "Sam reads 7 pages a day for 3 days. Pages?", answer: "7 * 3 = 21\n#### 21" },
  { question: "There are 9 birds; 4 fly off. How many stay?", answer: "9 - 4 = 5\n#### 5" },
  { question: "Lia saves 1,000 coins and spends 250. Left?", answer: "1000 - 250 = 750\n#### 750" },
];
export const GSM8K_TEST = [{ question: "Ana has 6 apples and gets 6 more. Apples?", answer: "6 + 6 = 12\n#### 12" }];

export const HOTPOT_TRAIN = [
  {
    id: "h1",
    question: "Which city is the home of the museum designed by Lena Ortiz?",
    answer: "Valdora",
    context: { title: ["Lena Ortiz", "Harbor Museum"], sentences: [["Lena Ortiz is an architect.", "She designed the Harbor Museum."], ["The Harbor Museum stands in Valdora."]] },
  },
  { id: "h2", question: "Is the Quill River longer than the Brent River?", answer: "yes", context: { title: ["Quill River"], sentences: [["The Quill River is 400 km long; the Brent is 120 km."]] } },
];
export const HOTPOT_VALIDATION = [{ id: "h3", question: "Who founded Orchid Press?", answer: "Mara Ilves", context: { title: ["Orchid Press"], sentences: [["Orchid Press was founded by Mara Ilves."]] } }];

/** BBEH rows: one split per subtask, `input` → `target`. */
export const DYCK_ROWS = [
  { input: "Complete the sequence: ( [", target: "] )" },
  { input: "Complete the sequence: { (", target: ") }" },
  { input: "Complete the sequence: < {", target: "} >" },
  { input: "Complete the sequence: [ <", target: "> ]" },
];

export const STRATEGY_TRAIN = [
  { qid: "s1", question: "Could a goldfish ride a bicycle?", answer: false },
  { qid: "s2", question: "Is ice colder than steam?", answer: true },
  { qid: "s3", question: "Can a whale live in a teacup?", answer: false },
];

export function writeJsonl(path: string, rows: readonly object[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

export function writeParquetFile(path: string, columns: readonly ParquetColumn[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeParquet(path, columns);
}

/**
 * A hub-cache repository as huggingface_hub leaves it: the file in blobs/, the snapshot's file a
 * relative link to it, refs/main naming the revision.
 */
export function writeHubCacheFile(hubCache: string, datasetId: string, revision: string, pathInRepo: string, write: (path: string) => void, isMain = true): void {
  const repo = join(hubCache, `datasets--${datasetId.replace("/", "--")}`);
  const blob = join(repo, "blobs", `${revision}-${pathInRepo.replaceAll("/", "_")}`);
  mkdirSync(dirname(blob), { recursive: true });
  write(blob);
  const link = join(repo, "snapshots", revision, pathInRepo);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), blob), link);
  if (isMain) {
    mkdirSync(join(repo, "refs"), { recursive: true });
    writeFileSync(join(repo, "refs", "main"), revision);
  }
}

/** A TaskLlm that answers from a function of the request and keeps every request. */
export function scriptedTaskLlm(answer: (request: TaskLlmRequest, index: number) => string): TaskLlm & { readonly requests: TaskLlmRequest[] } {
  const requests: TaskLlmRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      return { content: answer(request, requests.length - 1), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "scripted", stub: false };
    },
  };
}
