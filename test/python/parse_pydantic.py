"""Structured output through the official OpenAI Python SDK, as its users write it:
client.chat.completions.parse with pydantic models, one seed after another.

Usage: python3 parse_pydantic.py BASE_URL MODEL SEEDS [EXTRA_BODY_JSON [FIRST_SEED]]
(EXTRA_BODY_JSON: fields sent beside the SDK's own, as extra_body, e.g. '{"dry_multiplier": 0.8}'.)
Prints one JSON line per request and exits non-zero if any failed (the SDK raises
LengthFinishReasonError when the output never ended, and a validation error when it
does not match the model)."""
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import List, Literal, Optional

from openai import LengthFinishReasonError, OpenAI
from pydantic import BaseModel


class CalendarEvent(BaseModel):
    name: str
    date: str
    participants: List[str]


class Step(BaseModel):
    explanation: str
    output: str


class MathReasoning(BaseModel):
    steps: List[Step]
    final_answer: str


class Product(BaseModel):
    title: str
    price: float
    in_stock: bool
    category: Literal["book", "food", "tool"]
    rating: Optional[int] = None


CASES = [
    (CalendarEvent, "Alice and Bob are going to a science fair on Friday. Extract the event."),
    (MathReasoning, "How can I solve 8x + 7 = -23? Answer step by step."),
    (Product, "Describe a hammer for sale in a hardware shop."),
]


def main() -> int:
    base_url, model, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    extra_body = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    # A slow shared CPU can take over 10 minutes (the SDK's default) for a 1,024-token answer.
    client = OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=3600)

    def run(seed: int) -> dict:
        schema, prompt = CASES[seed % len(CASES)]
        try:
            completion = client.chat.completions.parse(
                model=model,
                messages=[{"role": "user", "content": prompt}],
                response_format=schema,
                seed=seed,
                # Sampled, as users do; a budget that fits an answer, not a ramble: at
                # temperature 1 this 135M model can list participants for 1,000 tokens.
                temperature=0.7,
                max_tokens=1024,
                extra_body=extra_body,
            )
            choice = completion.choices[0]
            return {"seed": seed, "schema": schema.__name__, "ok": choice.message.parsed is not None,
                    "finish_reason": choice.finish_reason, "tokens": completion.usage.completion_tokens}
        except LengthFinishReasonError as error:
            # The output did not end: report what it was, so the test can tell a model that
            # rambles on in its strings from JSON that never ends (whitespace until max_tokens).
            content = error.completion.choices[0].message.content or ""
            return {"seed": seed, "schema": schema.__name__, "ok": False, "error": "LengthFinishReasonError", "content": content}
        except Exception as error:  # the SDK's own errors are what this test is about
            return {"seed": seed, "schema": schema.__name__, "ok": False, "error": f"{type(error).__name__}: {error}"}

    ok = True
    with ThreadPoolExecutor(max_workers=4) as pool:
        for result in pool.map(run, range(first, first + seeds)):
            print(json.dumps(result), flush=True)
            ok = ok and result["ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
