"""xgrammar on the inputs of `npm run bench:grammar`, printing the same JSON fields.

Run through bench/peer-xgrammar.sh, which installs xgrammar 0.2.8 in a venv outside the repo
and dumps the inputs (fixtures/grammar-inputs.ts): per vocabulary the decoded bytes of every
token (so both engines see the same tokens, as a RAW vocabulary), the stop tokens, and the
token ids of each grammar's fixed valid output. One thread, as lmforge measures itself.

    python bench/peer_xgrammar.py inputs.json [--vocab NAME] [--grammar NAME]
"""

import base64
import json
import statistics
import sys
import time

import xgrammar as xgr

REPEATS = 3
MASK_ROUNDS = 5
WARMUP_ROUNDS = 10


def arg(flag):
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else None


def compile_grammar(compiler, g):
    if g["kind"] == "builtin_json":
        return compiler.compile_builtin_json_grammar()
    return compiler.compile_json_schema(json.dumps(g["schema"]), any_whitespace=True, strict_mode=True)


def main():
    inputs = json.load(open(sys.argv[1]))
    only_vocab, only_grammar = arg("--vocab"), arg("--grammar")
    for v in inputs["vocabs"]:
        if only_vocab and v["name"] != only_vocab:
            continue
        tokens = [base64.b64decode(t) for t in v["tokens"]]
        builds = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            info = xgr.TokenizerInfo(tokens, xgr.VocabType.RAW, vocab_size=v["vocab_size"], stop_token_ids=v["stop"])
            builds.append((time.perf_counter() - t0) * 1000)
        for g in inputs["grammars"]:
            if only_grammar and g["name"] != only_grammar:
                continue
            compiles, compile_cpus, firsts = [], [], []
            compile_grammar(xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False), g)  # warm-up, as lmforge does
            for _ in range(REPEATS):
                compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
                cpu0 = time.process_time()
                t0 = time.perf_counter()
                compiled = compile_grammar(compiler, g)
                compiles.append((time.perf_counter() - t0) * 1000)
                compile_cpus.append((time.process_time() - cpu0) * 1000)
                # xgrammar has no lazy mode: the first mask needs the whole compile.
                compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
                t0 = time.perf_counter()
                first = xgr.GrammarMatcher(compile_grammar(compiler, g))
                bitmask = xgr.allocate_token_bitmask(1, info.vocab_size)
                first.fill_next_token_bitmask(bitmask)
                firsts.append((time.perf_counter() - t0) * 1000)
            bitmask = xgr.allocate_token_bitmask(1, info.vocab_size)
            tokens = v["outputs"][g["name"]]
            # Per step, the median over MASK_ROUNDS walks after WARMUP_ROUNDS (as lmforge does).
            rounds = [[] for _ in tokens]
            for round_ in range(WARMUP_ROUNDS + MASK_ROUNDS):
                matcher = xgr.GrammarMatcher(compiled)
                for step, token in enumerate(tokens):
                    t0 = time.perf_counter()
                    matcher.fill_next_token_bitmask(bitmask)
                    dt = (time.perf_counter() - t0) * 1e6
                    if round_ >= WARMUP_ROUNDS:
                        rounds[step].append(dt)
                    if not matcher.accept_token(token):
                        raise SystemExit(f"{g['name']}/{v['name']}: xgrammar refused token {token} of the valid output")
            times = sorted(statistics.median(r) for r in rounds)
            pick = lambda p: times[min(len(times) - 1, int(p / 100 * len(times)))]
            print(json.dumps({
                "grammar": g["name"],
                "vocab": v["name"],
                "vocab_build_ms": round(statistics.median(builds), 1),
                "compile_ms": round(statistics.median(compiles), 1),
                "compile_cpu_ms": round(statistics.median(compile_cpus), 1),
                "first_mask_ms": round(statistics.median(firsts), 2),
                "mask_mean_us": round(sum(times) / len(times), 1),
                "mask_p50_us": round(pick(50), 1),
                "mask_p99_us": round(pick(99), 1),
                "steps": len(times),
            }), flush=True)


if __name__ == "__main__":
    main()
