"""
A stand-in for Python's dspy (the edge of the world we cannot reach: PyPI is not reachable here),
for the tests of framework dspy. It has the few names the hf suite's DSPy program uses
(Signature, InputField, OutputField, Predict, LM, configure) and behaves as dspy does where the
tests look: Predict formats the signature into chat messages in the manner of dspy's ChatAdapter,
the LM sends them as an OpenAI-compatible chat completion to its api_base with its api_key (plain
urllib, as LiteLLM would over HTTP), and the reply's output fields are parsed from their markers.
It is not DSPy: no optimizers, no caching, no retries. Put its folder on PYTHONPATH.
"""
import json
import re
import urllib.request

__version__ = "0.0-stand-in"

_settings = {"lm": None}


class _Field:
    def __init__(self, desc=""):
        self.desc = desc


class InputField(_Field):
    pass


class OutputField(_Field):
    pass


def _default_instructions(fields):
    inputs = ", ".join(f"`{n}`" for n, f in fields.items() if isinstance(f, InputField))
    outputs = ", ".join(f"`{n}`" for n, f in fields.items() if isinstance(f, OutputField))
    return f"Given the fields {inputs}, produce the fields {outputs}."


class _SignatureMeta(type):
    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        fields = {}
        for base in reversed(cls.__mro__[1:]):
            fields.update(getattr(base, "fields", {}))
        fields.update({k: v for k, v in namespace.items() if isinstance(v, _Field)})
        cls.fields = fields
        doc = namespace.get("__doc__")
        cls.instructions = doc.strip() if doc else _default_instructions(fields)

    def __call__(cls, spec=None, instructions=None):
        # dspy.Signature("question -> answer", "instructions"): a new signature class.
        if isinstance(spec, str):
            left, right = spec.split("->")
            fields = {name.strip(): InputField() for name in left.split(",") if name.strip()}
            fields.update({name.strip(): OutputField() for name in right.split(",") if name.strip()})
            return cls._make(fields, instructions)
        return super().__call__()

    def _make(cls, fields, instructions):
        namespace = dict(fields)
        if instructions:
            namespace["__doc__"] = instructions
        return _SignatureMeta("StringSignature", (Signature,), namespace)

    def with_instructions(cls, instructions):
        return cls._make(dict(cls.fields), instructions)


class Signature(metaclass=_SignatureMeta):
    pass


class LM:
    def __init__(self, model, api_base=None, api_key=None, cache=True, **kwargs):
        self.model = model.split("/", 1)[-1]
        self.api_base = api_base.rstrip("/")
        self.api_key = api_key
        self.kwargs = kwargs

    def __call__(self, messages):
        body = {"model": self.model, "messages": messages, "temperature": 0.0, "max_tokens": 1000}
        request = urllib.request.Request(
            self.api_base + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + self.api_key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            reply = json.load(response)
        return [reply["choices"][0]["message"]["content"]]


def configure(lm=None, **kwargs):
    _settings["lm"] = lm


class Prediction:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class Predict:
    def __init__(self, signature):
        self.signature = Signature(signature) if isinstance(signature, str) else signature

    def _messages(self, inputs):
        fields = self.signature.fields
        described = lambda kind: "\n".join(f"{i + 1}. `{n}` (str){': ' + f.desc if f.desc else ''}" for i, (n, f) in enumerate((n, f) for n, f in fields.items() if isinstance(f, kind)))
        outputs = [n for n, f in fields.items() if isinstance(f, OutputField)]
        system = (
            f"Your input fields are:\n{described(InputField)}\nYour output fields are:\n{described(OutputField)}\n"
            f"In adhering to this structure, your objective is: \n        {self.signature.instructions}"
        )
        user = "\n\n".join(f"[[ ## {n} ## ]]\n{inputs[n]}" for n, f in fields.items() if isinstance(f, InputField))
        user += "\n\nRespond with the corresponding output fields, starting with the field " + ", then ".join(f"`[[ ## {n} ## ]]`" for n in outputs) + ", and then ending with the marker for `[[ ## completed ## ]]`."
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def __call__(self, **inputs):
        lm = _settings["lm"]
        if lm is None:
            raise RuntimeError("No LM is loaded: call dspy.configure(lm=...)")
        text = lm(self._messages(inputs))[0]
        outputs = {}
        for name, field in self.signature.fields.items():
            if isinstance(field, OutputField):
                found = re.search(r"\[\[ ## " + re.escape(name) + r" ## \]\]\s*(.*?)\s*(?=\[\[ ## |\Z)", text, re.S)
                outputs[name] = found.group(1).strip() if found else text.strip()
        return Prediction(**outputs)
