/** Examples as parallel lists: the agent gets `inputs[i]`, the guide scores against `infos[i]`. */
export interface Dataset {
  readonly inputs: readonly unknown[];
  readonly infos: readonly unknown[];
}
