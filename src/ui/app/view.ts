/** A page of the dashboard: rendered into the main element, disposed (streams closed, charts destroyed) when left. */
export interface View {
  dispose(): void;
}
