"""
The hf suite's DSPy agents (framework dspy), run with Python's own dspy in the python agent
worker pool: one fresh python3 per example, its LM pointed at the job's loopback audit endpoint
(OPENAI_BASE_URL / OPENAI_API_KEY, the job's secret), so every call DSPy makes is recorded,
journaled and budgeted by trace-bench and the provider's key never reaches this code.

As in the original: a question-answering task ("hfqa") is a dspy.Predict over
(context, question -> answer); a BBEH-style task a dspy.Predict over "question -> answer". The
signature's instructions are the trainable text; the answer goes back as a plain string for the
task's guide to score.
"""
import os

import dspy

# The endpoint answers with the job's configured agent model, whatever a request names; DSPy
# (LiteLLM) needs a provider prefix to send OpenAI-compatible requests.
ENDPOINT_MODEL = "openai/trace-bench-endpoint"


def _signature(kind, instructions):
    if kind == "bbeh":
        return dspy.Signature("question -> answer", instructions)

    class HotpotQASignature(dspy.Signature):
        context: str = dspy.InputField(desc="Context paragraphs for the question")
        question: str = dspy.InputField(desc="The question to answer")
        answer: str = dspy.OutputField(desc="A concise, factual answer")

    return HotpotQASignature.with_instructions(instructions)


def answer(kind, instructions, question, context):
    """The DSPy program's answer to one example (kind: "hfqa" or "bbeh")."""
    lm = dspy.LM(ENDPOINT_MODEL, api_base=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"], cache=False)
    dspy.configure(lm=lm)
    predict = dspy.Predict(_signature(kind, instructions))
    result = predict(question=question) if kind == "bbeh" else predict(context=context, question=question)
    return str(result.answer)
