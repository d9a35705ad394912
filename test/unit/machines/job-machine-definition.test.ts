import { createMachine, setup } from "xstate";
import { describe, expect, it } from "vitest";
import { machineDefinition, UnexportableMachine } from "../../../machines/job-machine-definition.js";

describe("machineDefinition", () => {
  it("refuses what the JSON could not carry: an inline guard or action, a context factory", () => {
    const inlineGuard = createMachine({ id: "m", initial: "a", states: { a: { on: { GO: { target: "b", guard: () => true } } }, b: {} } });
    expect(() => machineDefinition(inlineGuard)).toThrow(UnexportableMachine);
    expect(() => machineDefinition(inlineGuard)).toThrow("m.a: an inline guard cannot be exported");
    const inlineAction = createMachine({ id: "m", initial: "a", states: { a: { entry: () => {} } } });
    expect(() => machineDefinition(inlineAction)).toThrow("m.a: an inline action cannot be exported");
    const contextFactory = createMachine({ id: "m", context: () => ({ n: 1 }), initial: "a", states: { a: {} } });
    expect(() => machineDefinition(contextFactory)).toThrow("a context factory");
  });

  it("writes nested states, explicit ids, entry/exit and always by name, and createMachine reads them back", () => {
    const machine = setup({ actions: { log: () => {} }, guards: { ready: () => true } }).createMachine({
      id: "outer",
      initial: "idle",
      states: {
        idle: { on: { GO: "#deep" } },
        busy: {
          initial: "one",
          entry: "log",
          states: { one: { id: "deep", exit: ["log"], always: { guard: "ready", target: "two" } }, two: { type: "final" } },
        },
      },
    });
    const definition = machineDefinition(machine);
    expect(definition).toEqual({
      id: "outer",
      initial: "idle",
      states: {
        idle: { on: { GO: { target: "#deep" } } },
        busy: {
          initial: "one",
          entry: ["log"],
          states: { one: { id: "deep", exit: ["log"], always: [{ target: "two", guard: "ready" }] }, two: { type: "final" } },
        },
      },
    });
    const again = createMachine(JSON.parse(JSON.stringify(definition)));
    expect(machineDefinition(again)).toEqual(definition);
  });
});
