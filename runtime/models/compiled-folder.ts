// `lmforge compile`'s output: a model folder `serve DIR` takes as it is.
//   DIR/MODEL.gguf            a link to the GGUF (a copy where links cannot be made)
//   DIR/lmforge-config.json   everything resolved: template, tool format, reasoning, stop
//                             tokens, default sampling, context and engine limits per mode,
//                             and the artifacts' binding (compiled-artifacts.ts)
//   DIR/artifacts/            the vocabulary tables and the built-in JSON grammar's masks
//   DIR/report.txt, report.json   the checks, as `lmforge compile` printed them
import { copyFile, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { formatCheckLine } from './check/check-line.js';
import type { ModelCheck } from './check/check-model.js';
import { buildArtifacts, writeModelConfig } from './compiled-artifacts.js';
import { LMFORGE_VERSION } from '../version.js';

export async function writeCompiledFolder(ggufPath: string, check: ModelCheck, out: string): Promise<{ config: Record<string, unknown>; linked: boolean }> {
  await mkdir(out, { recursive: true });
  const modelFile = basename(ggufPath);
  const target = join(out, modelFile);
  let linked = true;
  if (resolve(target) !== resolve(ggufPath)) {
    await rm(target, { force: true });
    try {
      await symlink(resolve(ggufPath), target);
    } catch {
      linked = false; // a file system without links (or across some mounts): copy
      await copyFile(ggufPath, target);
    }
  } else {
    linked = (await lstat(target)).isSymbolicLink();
  }
  const artifacts = await buildArtifacts(ggufPath, out, check.tools?.toolFormat);
  const config: Record<string, unknown> = {
    lmforge_version: LMFORGE_VERSION,
    model_file: modelFile,
    source: resolve(ggufPath),
    chat_template: check.template
      ? { source: check.template.source, stop: check.template.stop, note: check.template.note, given: check.givenTemplate !== undefined, ...(check.givenTemplate ? { label: check.givenTemplate } : {}) }
      : null,
    tool_format: check.tools?.toolFormat ?? null,
    template_renders_tools: check.tools?.templateKnowsTools ?? null,
    reasoning: check.tools ? { on: check.tools.reasoning, open: check.tools.thinkOpen, close: check.tools.thinkClose } : null,
    stop_tokens: check.stopTokens,
    sampling: check.sampling,
    context_length: check.memory?.contextLength ?? null,
    kv_bytes_per_token: check.memory?.kvBytesPerToken ?? null,
    weight_bytes: check.memory?.weightBytes ?? null,
    engine: check.memory?.modes ?? {},
    artifacts,
  };
  await writeModelConfig(out, config);
  await writeFile(join(out, 'report.txt'), `${check.lines.map(formatCheckLine).join('\n')}\n`);
  await writeFile(join(out, 'report.json'), `${JSON.stringify({ model: resolve(ggufPath), passed: check.passed, checks: check.lines }, null, 2)}\n`);
  return { config, linked };
}

