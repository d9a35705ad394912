/**
 * The prompts of TextGrad's textual gradient descent (algorithms reference §2.5), in our own words:
 * the same three roles (gradient engine, feedback reducer, optimizer), the same order of parts and
 * the same tags (`<ROLE>`, `<VARIABLE>`, `<LM_INPUT>`, `<LM_OUTPUT>`, `<FEEDBACK>`, `<CONVERSATION>`,
 * `<CONTEXT>`, `<CONSTRAINTS>`, and `<IMPROVED_VARIABLE>` around the answer).
 */
import { renderValue, type ProblemGraphNode, type ProblemInstance, type ProblemVariable } from "../problem.js";

export const IMPROVED_OPEN = "<IMPROVED_VARIABLE>";
export const IMPROVED_CLOSE = "</IMPROVED_VARIABLE>";

// ---------------------------------------------------------------- backward ("gradient engine")

export const GRADIENT_SYSTEM_PROMPT = `You are one component of a system that optimizes a piece of text, called the variable. Your job is to be its gradient engine: you produce feedback, not new versions. Give thoughtful, creative and constructive criticism of the variable with respect to the objective written between <OBJECTIVE_FUNCTION> </OBJECTIVE_FUNCTION> tags. A variable can be a prompt for a language model, the solution to a problem, code, a number, or any other value written as text. Read the role of the variable and the context it is used in carefully, and assume it will be used in a similar context later. Describe only strategies, explanations and concrete changes to make to the variable; DO NOT write an improved version of the variable yourself, that is the optimizer's job. Good feedback reads like "The output misses X because the variable ...", "Adding X would fix this error because ...", "Removing X should help the objective because ...", or "Changing X to Y corrects the mistake ...", always tied to the downstream objective.
If the variable already works well (the objective is fully met, the evaluation says the output is correct), give no feedback.

### The tags you will see:
# - <LM_INPUT>: what went into the operation (here, the variable's value).
# - <LM_OUTPUT>: what the operation produced.
# - <OBJECTIVE_FUNCTION>: what the optimization is trying to achieve.
# - <FEEDBACK>: feedback received on the output.
# - <VARIABLE>: the span of text that is the variable.
# - <ROLE>: what the variable is for.`;

export function shortValue(text: string, wordsEachSide = 10): string {
  const words = text.split(" ");
  if (words.length <= 2 * wordsEachSide) return text;
  return `${words.slice(0, wordsEachSide).join(" ")} (...) ${words.slice(-wordsEachSide).join(" ")}`;
}

/** The role of a variable (TextGrad's role description): its type and name, then its description. */
export function roleOf(variable: ProblemVariable): string {
  const base = `${variable.type} variable '${variable.name}'`;
  return variable.description.trim() === "" ? base : `${base} (${variable.description.trim()})`;
}

/** The role of any graph node: a variable's as above; another node's type, name, and what made it. */
export function nodeRole(node: ProblemGraphNode, documentation?: string): string {
  const kind = node.variable !== undefined ? "variable" : node.op !== undefined ? `output of the operation ${node.op}` : "input";
  const about = [node.description.trim(), documentation?.trim() ?? ""].filter((s) => s !== "").join(" ");
  const base = `${node.type} ${kind === "variable" ? "variable" : "node"} '${node.name}'${kind === "variable" ? "" : ` (${kind})`}`;
  return about === "" ? base : `${base} (${about})`;
}

export function outputValue(problem: ProblemInstance): string {
  return problem.outputs.map((n) => n.value.trimEnd()).join("\n");
}

/** One edge of the graph: `input` went into the operation that produced `output`. */
export interface GraphEdge {
  readonly input: ProblemGraphNode;
  readonly output: ProblemGraphNode;
  /** The documentation of the output's operation. */
  readonly documentation?: string | undefined;
}

/** The conversation a gradient is about: the input's value went in, the output's came out. */
export function edgeConversation(edge: GraphEdge): string {
  return `<LM_INPUT> ${edge.input.value} </LM_INPUT>\n\n<LM_OUTPUT> ${edge.output.value.trimEnd()} </LM_OUTPUT>\n\n`;
}

/** The backward prompt for one edge, given the gradient (feedback) that reached the output. */
export function edgeGradientPrompt(edge: GraphEdge, outputFeedback: string): string {
  const role = nodeRole(edge.input);
  return (
    `You will give feedback on a variable with this role: <ROLE> ${role} </ROLE>. Here is a conversation with a language model (LM):\n\n` +
    edgeConversation(edge) +
    `This conversation is one step of a larger system. The <LM_OUTPUT> is the output of the operation, used as ${nodeRole(edge.output, edge.documentation)}.\n\n` +
    `<OBJECTIVE_FUNCTION>Your goal is to give feedback on the variable that addresses this feedback on the <OP_OUTPUT>:\n${outputFeedback.trimEnd()} </OBJECTIVE_FUNCTION>\n\n` +
    `We want feedback on the ${role} in this conversation. Concretely, give feedback on this span of text:\n\n` +
    `<VARIABLE> ${shortValue(edge.input.value)} </VARIABLE>\n\n` +
    `From the history above, explain how the ${role} could change so that the <OBJECTIVE_FUNCTION> is better met. Be creative, critical and precise.\n\n`
  );
}

// ---------------------------------------------------------------- reduce (several gradients on one node)

export const REDUCE_SYSTEM_PROMPT =
  "You are one component of a system that optimizes a piece of text, called the variable. " +
  "Your only job is to combine feedback that came from several sources into one critical summary. " +
  "A variable can be a prompt for a language model, the solution to a problem, code, a number, or any other value written as text. " +
  "Each source's feedback is given between <FEEDBACK> </FEEDBACK> tags. " +
  "Answer with the essential summary of the feedback only. Do not suggest a new version of the variable; summarize the feedback critically and nothing more.";

export function reduceUserPrompt(items: readonly string[]): string {
  return items.map((item) => `<FEEDBACK>${item}</FEEDBACK>`).join("\n");
}

// ---------------------------------------------------------------- update (textual gradient descent)

export const UPDATE_SYSTEM_PROMPT = `You are one component of a system that optimizes a piece of text, called the variable. You will be asked to improve prompts, solutions to problems, code, numbers or any other value written as text, creatively and critically. You will receive feedback and use it to improve the variable. The feedback may be noisy: work out which parts are important and which are correct. Read the role of the variable and the context it is used in carefully. This is essential: you MUST answer with the improved variable between ${IMPROVED_OPEN} {improved variable} ${IMPROVED_CLOSE} tags. Whatever you write between the tags replaces the variable as it is.

### The tags you will see:
# - <LM_INPUT>: what went into the operation.
# - <LM_OUTPUT>: what the operation produced.
# - <FEEDBACK>: feedback on the variable.
# - <CONVERSATION>: the conversation the variable took part in.
# - <CONTEXT>: the conversations and the feedback on the variable.
# - <ROLE>: what the variable is for.
# - <VARIABLE>: the span of text that is the variable.`;

export interface GradientWithContext {
  readonly gradient: string;
  /** The conversation and output role of the edge the gradient came over (absent for the user's own feedback). */
  readonly context?: { readonly conversation: string; readonly outputRole: string; readonly role: string };
}

export function gradientText(g: GradientWithContext): string {
  if (!g.context) return g.gradient;
  return (
    `Here is a conversation:\n\n<CONVERSATION>${g.context.conversation}</CONVERSATION>\n\n` +
    `This conversation may be one step of a larger system. The output is used as ${g.context.outputRole}\n\n` +
    `Here is the feedback we received for ${g.context.role} in the conversation:\n\n<FEEDBACK>${g.gradient}</FEEDBACK>\n\n`
  );
}

/** What the variable must respect: its description (as in OpenTrace) and what its type allows. */
export function constraintsOf(variable: ProblemVariable): string {
  const typeRule: Record<ProblemVariable["kind"], string> = {
    number: "The value is a number (float): write the number only.",
    integer: "The value is an integer: write the integer only.",
    text: "The value is text.",
    code: "The value is code: write the complete definition without syntax errors, and keep the function name and signature.",
    json: "The value is a JSON value (a list or an object): write valid JSON.",
  };
  return [variable.description.trim(), typeRule[variable.kind]].filter((s) => s !== "").join("\n");
}

export function updateUserPrompt(variable: ProblemVariable, gradients: readonly GradientWithContext[]): string {
  const role = roleOf(variable);
  return (
    `Here is the role of the variable you will improve: <ROLE>${role}</ROLE>.\n\n` +
    `The variable is the text within this span: <VARIABLE> ${shortValue(renderValue(variable.value, variable.kind))} </VARIABLE>\n\n` +
    `Here is the context and the feedback we received for the variable:\n\n` +
    `<CONTEXT>${gradients.map(gradientText).join("\n")}</CONTEXT>\n\n` +
    `Improve the variable (${role}) using the feedback given in <FEEDBACK> tags.\n` +
    `You must respect these constraints:\n\n<CONSTRAINTS>${constraintsOf(variable)}</CONSTRAINTS>\n\n` +
    `Send the improved variable in this format:\n\n${IMPROVED_OPEN}{the improved variable}${IMPROVED_CLOSE}\n\n` +
    `Send ONLY the improved variable between the ${IMPROVED_OPEN} tags, and nothing else.`
  );
}
