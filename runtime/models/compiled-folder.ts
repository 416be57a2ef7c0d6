// `lmforge compile`'s output: a model folder `serve DIR` takes as it is.
//   DIR/MODEL.gguf            a link to the GGUF (a copy where links cannot be made)
//   DIR/lmforge-config.json   everything resolved: template, tool format, reasoning, stop
//                             tokens, default sampling, context and engine limits per mode,
//                             and the artifacts' binding (compiled-artifacts.ts)
//   DIR/artifacts/            the vocabulary tables and the built-in JSON grammar's masks
//   DIR/report.txt, report.json   the checks, as `lmforge compile` printed them
import { copyFile, lstat, mkdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { formatCheckLine } from './check/check-line.js';
import type { ModelCheck } from './check/check-model.js';
import { buildArtifacts, writeModelConfig } from './compiled-artifacts.js';
import { LMFORGE_VERSION } from '../version.js';

/** The compiled folder could not be written where asked: the one line the user reads. */
export class CompiledFolderError extends UserFacingError {
  override name = 'CompiledFolderError';
}

export async function writeCompiledFolder(ggufPath: string, check: ModelCheck, out: string): Promise<{ config: Record<string, unknown>; linked: boolean }> {
  await makeFolder(out);
  // Paths compared as the file system resolves them: through a linked folder, OUT/MODEL.gguf
  // may be the GGUF itself, which must never be removed to make a link to it.
  const source = await realpath(ggufPath);
  const modelFile = basename(ggufPath);
  const target = join(out, modelFile);
  const present = await lstat(target).catch(() => undefined);
  let linked = true;
  if (present && !present.isSymbolicLink()) {
    if ((await realpath(target)) !== source) {
      throw new CompiledFolderError(`${target} exists and is not the GGUF being compiled (${source}); move it, or choose another --out`);
    }
    linked = false; // OUT holds the GGUF itself: used where it is
  } else {
    // A link is lmforge's own (or the user's): made again, to the file itself, not to another link.
    if (present) await rm(target);
    try {
      await symlink(source, target);
    } catch {
      linked = false; // a file system without links (or across some mounts): copy
      await copyFile(source, target);
    }
  }
  const artifacts = await buildArtifacts(ggufPath, out, check.tools?.toolFormat);
  const config: Record<string, unknown> = {
    lmforge_version: LMFORGE_VERSION,
    model_file: modelFile,
    source,
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


/**
 * mkdir -p that fails instead of hanging: Node 20's recursive mkdir never settles where a
 * parent refuses new entries with ENOENT (/proc/x), so the parents are made one by one.
 */
async function makeFolder(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if ((await stat(path)).isDirectory()) return;
      throw new CompiledFolderError(`${path} exists and is not a folder; choose another --out`);
    }
    if (code !== 'ENOENT' || dirname(path) === path) throw new CompiledFolderError(`cannot make the folder ${path}: ${(error as Error).message}`);
    await makeFolder(dirname(path));
    await mkdir(path).catch((again: Error) => {
      throw new CompiledFolderError(`cannot make the folder ${path}: ${again.message}`);
    });
  }
}
