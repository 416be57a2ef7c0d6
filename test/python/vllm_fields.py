"""vLLM's request fields through the official OpenAI Python SDK, as vLLM's users send them
(extra_body) and read them (the SDK keeps fields it does not know in model_extra).

Usage: python3 vllm_fields.py BASE_URL MODEL
Prints one JSON line per check and exits non-zero if any failed."""
import json
import re
import sys
import urllib.request
from typing import List

from openai import OpenAI
from pydantic import BaseModel


class City(BaseModel):
    name: str
    country: str
    population: int


def main() -> int:
    base_url, model = sys.argv[1], sys.argv[2]
    client = OpenAI(base_url=base_url, api_key="unused", max_retries=0)
    ask = [{"role": "user", "content": "Tell me about Paris."}]
    failures = 0

    def check(name, fn):
        nonlocal failures
        try:
            detail = fn()
            print(json.dumps({"check": name, "ok": True, "detail": detail}))
        except Exception as error:  # a failed check is reported, the others still run
            failures += 1
            print(json.dumps({"check": name, "ok": False, "error": f"{type(error).__name__}: {error}"}))

    def guided_json():
        reply = client.chat.completions.create(model=model, messages=ask, max_tokens=300, temperature=0, extra_body={"guided_json": City.model_json_schema()})
        assert reply.choices[0].finish_reason == "stop", reply.choices[0].finish_reason
        return City.model_validate_json(reply.choices[0].message.content).model_dump()

    def choice():
        reply = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Is water wet? yes or no"}], max_tokens=5, extra_body={"structured_outputs": {"choice": ["yes", "no"]}})
        assert reply.choices[0].message.content in ("yes", "no"), reply.choices[0].message.content
        return reply.choices[0].message.content

    def min_tokens():
        reply = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Say hi."}], max_tokens=60, temperature=0, extra_body={"min_tokens": 40})
        assert reply.usage.completion_tokens >= 40, reply.usage
        return reply.usage.completion_tokens

    def prompt_logprobs():
        reply = client.chat.completions.create(model=model, messages=ask, max_tokens=1, extra_body={"prompt_logprobs": 2})
        scores = reply.model_extra["prompt_logprobs"]
        assert len(scores) == reply.usage.prompt_tokens and scores[0] is None, len(scores)
        for entry in scores[1:]:
            own = next(iter(entry.values()))
            assert own["logprob"] <= 0 and own["rank"] >= 1 and 2 <= len(entry) <= 3, entry
        return len(scores)

    def token_ids():
        reply = client.chat.completions.create(model=model, messages=ask, max_tokens=5, logprobs=True, top_logprobs=1, extra_body={"return_tokens_as_token_ids": True})
        names = [entry.token for entry in reply.choices[0].logprobs.content]
        assert names and all(re.fullmatch(r"token_id:\d+", name) for name in names), names
        return names

    def continued():
        messages = ask + [{"role": "assistant", "content": "Paris is the capital of"}]
        reply = client.chat.completions.create(model=model, messages=messages, max_tokens=8, temperature=0, extra_body={"continue_final_message": True, "add_generation_prompt": False})
        request = urllib.request.Request(base_url.removesuffix("/v1") + "/tokenize", data=json.dumps({"messages": messages, "continue_final_message": True}).encode(), headers={"content-type": "application/json"})
        counted = json.load(urllib.request.urlopen(request))["count"]
        assert reply.usage.prompt_tokens == counted, (reply.usage.prompt_tokens, counted)
        assert reply.choices[0].message.content, "a continuation"
        return reply.choices[0].message.content

    for name, fn in [("guided_json", guided_json), ("choice", choice), ("min_tokens", min_tokens), ("prompt_logprobs", prompt_logprobs), ("return_tokens_as_token_ids", token_ids), ("continue_final_message", continued)]:
        check(name, fn)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
