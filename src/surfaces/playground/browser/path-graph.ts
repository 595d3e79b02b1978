// A decision's path as a graph: objects as boxes in layers from the subject (top) to the resource (bottom), each stored
// tuple an arrow labelled with its relation; drawn as SVG through the DOM (the page's CSP allows no inline styles).
import { parseTupleText } from '../../../engine/ids.js';
import type { Decision } from './decision.js';

export interface GraphNode {
  id: string;
  layer: number;
  row: number;
  x: number;
  y: number;
  role: 'subject' | 'resource' | 'via';
}
export interface GraphEdge {
  from: string;
  to: string;
  label: string;
  kind: 'tuple' | 'public' | 'none';
}
export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

const NODE_W = 180;
const NODE_H = 40;
const GAP_X = 24;
const GAP_Y = 32;
const MARGIN = 16;
/** Below the resource: the verdict. */
const FOOT = 24;

/** Layers (rows) by distance from the subject along the tuples, a breadth-first walk; whatever is not reached goes last. */
export function layoutDecision(d: Decision): GraphLayout {
  const edges: GraphEdge[] = d.path.map((text) => {
    const t = parseTupleText(text);
    return t ? { from: t.subject, to: t.resource, label: t.relation, kind: 'tuple' as const } : { from: d.subject, to: d.resource, label: text, kind: 'tuple' as const };
  });
  if (d.subject !== d.resource && edges.length === 0) {
    edges.push(
      d.allowed ? { from: d.subject, to: d.resource, label: `public (*): ${d.action}`, kind: 'public' } : { from: d.subject, to: d.resource, label: 'no path', kind: 'none' },
    );
  }
  const layer = new Map<string, number>([[d.subject, 0]]);
  for (const frontier = [d.subject]; frontier.length;) {
    const at = frontier.shift()!;
    for (const e of edges) {
      if (e.from === at && !layer.has(e.to)) {
        layer.set(e.to, layer.get(at)! + 1);
        frontier.push(e.to);
      }
    }
  }
  const last = Math.max(...layer.values()) + 1;
  for (const o of [...edges.flatMap((e) => [e.from, e.to]), d.resource]) if (!layer.has(o)) layer.set(o, last);
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = [...layer].sort(([, a], [, b]) => a - b).map(([id, l]) => {
    const row = rows.get(l) ?? 0;
    rows.set(l, row + 1);
    const role = id === d.resource ? 'resource' : id === d.subject ? 'subject' : 'via';
    return { id, layer: l, row, role, x: MARGIN + row * (NODE_W + GAP_X), y: MARGIN + l * (NODE_H + GAP_Y) };
  });
  const width = MARGIN * 2 + Math.max(...rows.values()) * (NODE_W + GAP_X) - GAP_X;
  const height = MARGIN * 2 + FOOT + (Math.max(...nodes.map((n) => n.layer)) + 1) * (NODE_H + GAP_Y) - GAP_Y;
  return { nodes, edges, width, height };
}

const SVG = 'http://www.w3.org/2000/svg';

function el(name: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Replaces the SVG's content with the decision's graph. */
export function drawDecision(svg: SVGSVGElement, d: Decision): GraphLayout {
  const g = layoutDecision(d);
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${g.width} ${g.height}`);
  svg.setAttribute('width', String(g.width));
  svg.setAttribute('height', String(g.height));
  const defs = el('defs', {});
  const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' });
  marker.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
  defs.append(marker);
  svg.append(defs);
  const at = new Map(g.nodes.map((n) => [n.id, n]));
  for (const e of g.edges) {
    const a = at.get(e.from)!;
    const b = at.get(e.to)!;
    const [x1, y1, x2, y2] = [a.x + NODE_W / 2, a.y + NODE_H, b.x + NODE_W / 2, b.y];
    const group = el('g', { class: `edge edge-${e.kind}` });
    group.append(el('path', { d: `M ${x1} ${y1} C ${x1} ${y1 + GAP_Y / 2}, ${x2} ${y2 - GAP_Y / 2}, ${x2} ${y2}`, 'marker-end': 'url(#arrow)' }));
    group.append(el('text', { x: (x1 + x2) / 2 + 8, y: (y1 + y2) / 2 + 4 }, e.label));
    svg.append(group);
  }
  for (const n of g.nodes) {
    const colon = n.id.indexOf(':');
    const group = el('g', { class: `node node-${n.role}`, 'data-object': n.id });
    group.append(el('title', {}, n.id));
    group.append(el('rect', { x: n.x, y: n.y, width: NODE_W, height: NODE_H, rx: 6 }));
    group.append(el('text', { x: n.x + 10, y: n.y + 15, class: 'node-type' }, clip(n.id.slice(0, colon), 24)));
    group.append(el('text', { x: n.x + 10, y: n.y + 32, class: 'node-id' }, clip(n.id.slice(colon + 1), 24)));
    svg.append(group);
  }
  const verdict = d.allowed ? `${d.action}: allowed` : `${d.action}: denied`;
  const resource = at.get(d.resource)!;
  svg.append(el('text', { x: resource.x, y: resource.y + NODE_H + 17, class: `verdict ${d.allowed ? 'pass' : 'fail'}` }, verdict));
  return g;
}
