/**
 * The dashboard page: a hash router over four views (runs, run, job, launch). Built by esbuild
 * at `npm run build` into dist/ui with its libraries, so it needs nothing from the network.
 */
import "./style.css";
import { h, fill } from "./dom.js";
import type { View } from "./view.js";
import { jobInspector } from "./views/job-inspector.js";
import { launchView } from "./views/launch.js";
import { runView } from "./views/run-view.js";
import { runsListView } from "./views/runs-list.js";

const main = document.getElementById("main")!;
let current: View | null = null;

function route(): void {
  current?.dispose();
  current = null;
  const [path = "", query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a[data-nav]")) a.classList.toggle("active", a.dataset.nav === (parts[0] === "launch" ? "launch" : "runs"));
  try {
    if (parts.length === 0) current = runsListView(main);
    else if (parts[0] === "launch") current = launchView(main, params.get("config"));
    else if (parts[0] === "run" && parts.length === 2) current = runView(main, parts[1]!, (params.get("tab") ?? "results") as "results");
    else if (parts[0] === "run" && parts[2] === "job" && parts.length === 4) current = jobInspector(main, parts[1]!, parts[3]!);
    else fill(main, h("p", { class: "error" }, `No page at ${location.hash}`), h("a", { href: "#/" }, "Runs"));
  } catch (error) {
    fill(main, h("p", { class: "error" }, (error as Error).message));
  }
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
