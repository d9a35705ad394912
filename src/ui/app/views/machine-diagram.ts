/**
 * The job machine drawn as an SVG: nodes and edges from the server (read from the machine
 * definition), laid out with dagre (layered, top to bottom). The job's path is drawn over it:
 * the states it visited and the transitions it took in its latest attempt, and the state it is in.
 */
import * as dagre from "@dagrejs/dagre";
import type { MachinePayload, TransitionStep } from "../../api-types.js";
import { svg } from "../dom.js";

const CHAR_WIDTH = 7.2;
const NODE_HEIGHT = 34;

/** Edges between the same two states share one line, labelled with every event. */
function mergedEdges(machine: MachinePayload) {
  const byPair = new Map<string, { from: string; to: string; events: string[] }>();
  for (const e of machine.edges) {
    const key = `${e.from}\u0000${e.to}`;
    const entry = byPair.get(key) ?? { from: e.from, to: e.to, events: [] };
    const label = e.guard === null ? e.event : `${e.event} [${e.guard}]`;
    if (!entry.events.includes(label)) entry.events.push(label);
    byPair.set(key, entry);
  }
  return [...byPair.values()];
}

export function machineDiagram(machine: MachinePayload, path: readonly TransitionStep[], current: string): SVGSVGElement {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 46, edgesep: 12, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of machine.nodes) graph.setNode(node.id, { width: Math.max(84, node.id.length * CHAR_WIDTH + 28), height: NODE_HEIGHT });
  const edges = mergedEdges(machine);
  for (const e of edges) {
    const label = e.events.join(", ");
    graph.setEdge(e.from, e.to, { label, width: Math.min(label.length, 40) * 6 + 8, height: 14, labelpos: "c" });
  }
  dagre.layout(graph);

  const visited = new Set<string>([machine.initial, ...path.flatMap((t) => [t.from, t.to])]);
  const taken = new Set(path.map((t) => `${t.from}\u0000${t.to}`));
  const { width = 400, height = 300 } = graph.graph();
  const root = svg("svg", { class: "machine", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": `job machine, current state ${current}`, "data-testid": "machine-diagram" });
  root.append(
    svg("defs", null,
      svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" })),
      svg("marker", { id: "arrow-taken", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead taken" })),
    ),
  );
  for (const e of edges) {
    const laid = graph.edge(e.from, e.to) as { points: { x: number; y: number }[]; x?: number; y?: number; label: string };
    const d = laid.points.map((p, i) => `${i === 0 ? "M" : "L"} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
    const isTaken = taken.has(`${e.from}\u0000${e.to}`);
    root.append(
      svg("g", { class: `edge${isTaken ? " taken" : ""}`, "data-edge": `${e.from}->${e.to}` },
        svg("path", { d, "marker-end": isTaken ? "url(#arrow-taken)" : "url(#arrow)" }),
        laid.x !== undefined && laid.y !== undefined ? svg("text", { x: laid.x, y: laid.y + 4, "text-anchor": "middle" }, laid.label) : null,
      ),
    );
  }
  for (const node of machine.nodes) {
    const laid = graph.node(node.id) as { x: number; y: number; width: number; height: number };
    const classes = ["node", node.final ? "final" : "", visited.has(node.id) ? "visited" : "", node.id === current ? "current" : ""].filter(Boolean).join(" ");
    root.append(
      svg("g", { class: classes, "data-state": node.id, transform: `translate(${(laid.x - laid.width / 2).toFixed(1)} ${(laid.y - laid.height / 2).toFixed(1)})` },
        svg("rect", { width: laid.width, height: laid.height, rx: node.final ? 4 : 16 }),
        node.final ? svg("rect", { x: 3, y: 3, width: laid.width - 6, height: laid.height - 6, rx: 3, class: "inner" }) : null,
        svg("text", { x: laid.width / 2, y: laid.height / 2 + 4, "text-anchor": "middle" }, node.id),
      ),
    );
  }
  return root;
}
