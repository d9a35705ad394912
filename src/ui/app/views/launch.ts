/**
 * Launch a run: pick a config under the working directory, edit it (checked by `validate
 * --strict` as you type), choose the mode, runs folder and workers, save it as a new file (the
 * config it came from is never overwritten), and start it as a `trace-bench run` process of its
 * own; then follow it to its run page.
 */
import type { ConfigListPayload, LaunchPayload, LaunchStatusPayload, ValidationPayload } from "../../api-types.js";
import { get, post } from "../api.js";
import { fill, h } from "../dom.js";
import type { View } from "../view.js";
import { runHref } from "./runs-list.js";

const VALIDATE_DELAY_MS = 700;

/** The config text with its top-level `mode:` set (added when absent). */
export function withMode(text: string, mode: string): string {
  return /^mode:.*$/m.test(text) ? text.replace(/^mode:.*$/m, `mode: ${mode}`) : `mode: ${mode}\n${text}`;
}

/** A name for the edited copy of `path` that `taken` does not hold: `configs/smoke.yaml` → `configs/smoke-2.yaml`. */
export function copyName(path: string, taken: readonly string[]): string {
  const match = /^(.*?)(?:-(\d+))?(\.ya?ml)$/.exec(path);
  const [stem, ext] = match === null ? [path, ".yaml"] : [match[1]!, match[3]!];
  for (let n = 2; ; n++) {
    const name = `${stem}-${n}${ext}`;
    if (!taken.includes(name)) return name;
  }
}

export function launchView(root: HTMLElement, preselect: string | null): View {
  let disposed = false;
  let saved = "";
  let validateTimer: number | undefined;
  let validation = 0;
  const select = h("select", { "data-testid": "config-select", "aria-label": "config" });
  const editor = h("textarea", { class: "editor", spellcheck: "false", "data-testid": "config-editor", rows: 22 });
  const mode = h("select", { "data-testid": "mode", "aria-label": "mode" }, h("option", { value: "" }, "mode: as in the config"), h("option", { value: "stub" }, "stub"), h("option", { value: "real" }, "real"));
  const runsSubdir = h("input", { type: "text", placeholder: "(the runs dir)", "data-testid": "runs-subdir", "aria-label": "runs folder" });
  const workers = h("input", { type: "number", min: 1, placeholder: "config's", "data-testid": "max-workers", "aria-label": "max workers", class: "short" });
  const messages = h("div", { class: "validation", "data-testid": "validation" });
  const state = h("span", { class: "dim", "data-testid": "save-state" });
  const status = h("div", { class: "launch-status", "data-testid": "launch-status" });
  const saveAs = h("input", { type: "text", class: "mono", "data-testid": "save-as", "aria-label": "save as", placeholder: "configs/new.yaml" });
  const saveButton = h("button", { "data-testid": "save" }, "Save as new file");
  let configs: string[] = [];
  const launchButton = h("button", { class: "primary", "data-testid": "launch" }, "Launch");
  const runsDirLabel = h("span", { class: "dim" });

  const dirty = () => editor.value !== saved;
  const refreshButtons = () => {
    saveButton.disabled = !dirty() || saveAs.value.trim() === "";
    launchButton.disabled = dirty() || select.value === "";
    state.textContent = dirty() ? "unsaved changes: save them as a new file to launch" : "";
  };

  const validate = async () => {
    const mine = ++validation;
    fill(messages, h("div", { class: "dim" }, "validate --strict …"));
    try {
      const result = await post<ValidationPayload>("/api/config/validate", { path: select.value, text: editor.value });
      if (mine !== validation || disposed) return;
      fill(
        messages,
        h("div", { class: result.ok ? "ok" : "error", "data-testid": "validation-verdict" }, result.ok ? `valid: ${result.jobs} job${result.jobs === 1 ? "" : "s"}` : `not valid (exit ${result.exit_code})`),
        result.messages.map((m) => h("div", { class: m.startsWith("[FAIL]") || !m.startsWith("[") ? "error" : m.startsWith("[WARN") ? "warning" : "" }, m)),
      );
    } catch (error) {
      if (mine === validation) fill(messages, h("div", { class: "error" }, (error as Error).message));
    }
  };
  const scheduleValidate = () => {
    window.clearTimeout(validateTimer);
    validateTimer = window.setTimeout(() => void validate(), VALIDATE_DELAY_MS);
  };

  const open = async (path: string) => {
    const { text } = await get<{ path: string; text: string }>("/api/config", { path });
    editor.value = text;
    saved = text;
    mode.value = /^mode:\s*(stub|real)\s*$/m.exec(text)?.[1] ?? "";
    saveAs.value = copyName(path, configs);
    refreshButtons();
    void validate();
  };

  editor.addEventListener("input", () => {
    refreshButtons();
    scheduleValidate();
  });
  mode.addEventListener("change", () => {
    if (mode.value === "") return;
    editor.value = withMode(editor.value, mode.value);
    refreshButtons();
    scheduleValidate();
  });
  select.addEventListener("change", () => void open(select.value));
  saveAs.addEventListener("input", refreshButtons);
  saveButton.addEventListener("click", async () => {
    const path = saveAs.value.trim();
    try {
      await post("/api/config/save", { path, text: editor.value });
      // The new file is the one launched from now on; the config it was made from is unchanged.
      if (!configs.includes(path)) configs = [...configs, path].sort();
      fill(select, configs.map((c) => h("option", { value: c }, c)));
      select.value = path;
      saved = editor.value;
      saveAs.value = copyName(path, configs);
      refreshButtons();
      state.textContent = `saved as ${path}`;
    } catch (error) {
      state.textContent = `save failed: ${(error as Error).message}`;
    }
  });
  launchButton.addEventListener("click", async () => {
    launchButton.disabled = true;
    fill(status, "starting…");
    try {
      const launched = await post<LaunchPayload>("/api/launch", { config: select.value, runs_subdir: runsSubdir.value.trim(), max_workers: workers.value === "" ? null : Number(workers.value) });
      fill(status, `process ${launched.pid} started; console: ${launched.log}`);
      const poll = async (): Promise<void> => {
        if (disposed) return;
        const s = await get<LaunchStatusPayload>("/api/launch", { id: launched.launch_id });
        if (s.rel_dir !== null) {
          location.hash = runHref(s.rel_dir);
          return;
        }
        if (!s.running) {
          fill(status, h("div", { class: "error" }, `the run process ended (exit ${s.exit_code ?? "?"}) before writing a run:`), h("pre", null, s.output));
          launchButton.disabled = false;
          return;
        }
        window.setTimeout(() => void poll(), 300);
      };
      await poll();
    } catch (error) {
      fill(status, h("div", { class: "error" }, (error as Error).message));
      launchButton.disabled = false;
    }
  });

  fill(
    root,
    h("h1", null, "Launch a run"),
    h(
      "div",
      { class: "launch" },
      h(
        "div",
        { class: "launch-form" },
        h("label", null, "Config ", select),
        h("div", { class: "row" }, h("label", null, "Mode ", mode), h("label", null, "Runs folder ", runsSubdir), h("label", null, "Max workers ", workers)),
        runsDirLabel,
        editor,
        h("div", { class: "row" }, h("label", null, "Save as ", saveAs), saveButton, launchButton, state),
        status,
      ),
      h("div", { class: "launch-side" }, h("h3", null, "validate --strict"), messages),
    ),
  );
  refreshButtons();
  void get<ConfigListPayload>("/api/configs").then((list) => {
    runsDirLabel.textContent = `Runs folder is inside ${list.runs_dir}; configs are the YAML files with a top-level tasks: or trainers: key under ${list.cwd} (not in run, test, dot or node_modules folders).`;
    configs = [...list.configs];
    fill(select, list.configs.map((c) => h("option", { value: c }, c)));
    const first = preselect !== null && list.configs.includes(preselect) ? preselect : (list.configs.find((c) => c.endsWith("smoke.yaml")) ?? list.configs[0]);
    if (first !== undefined) {
      select.value = first;
      void open(first);
    }
  });
  return {
    dispose: () => {
      disposed = true;
      window.clearTimeout(validateTimer);
    },
  };
}
