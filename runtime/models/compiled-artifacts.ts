// The token-level artifacts of a compiled model folder (`lmforge compile`): the vocabulary's
// tables as the mask engine needs them (sorted tokens, prefix data, the token sets the JSON
// grammar and the model's tool-call family use whatever the tools) and the built-in JSON
// grammar with every token mask, so that `serve DIR` compiles neither at start-up nor on the
// first json_object request. They are bound to one lmforge version, one artifact format and
// one GGUF header (which holds the whole vocabulary), and each file to the SHA-256 it was
// written with: a folder whose binding does not match, or whose files changed, is rebuilt,
// never used.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARTIFACT_FORMAT_VERSION, Grammar, GrammarCompiler, serializeCompiledGrammar, type TokenizerInfo } from '../../compiler/index.js';
import { readGGUF } from '../../compiler/gguf/gguf-file.js';
import { toolCallTag } from '../chat-format/tool-call-tag.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../chat-format/tool-formats.js';
import { grammarVocabularyFromGGUF } from '../engine/worker/grammar-vocabulary.js';
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { LMFORGE_VERSION } from '../version.js';
import { MODEL_CONFIG_FILE } from './resolve-model.js';

export const ARTIFACTS_DIR = 'artifacts';
const VOCABULARY_FILE = 'vocabulary.lmvocab';
const JSON_OBJECT_FILE = 'json-object.lmgrammar';

/** What lmforge-config.json's "artifacts" records. */
export interface ArtifactsRecord {
  lmforge_version: string;
  artifact_format: number;
  /** sha256 of the GGUF's header (metadata and tensor table, the vocabulary with it). */
  gguf_header_sha256: string;
  vocabulary_fingerprint: string;
  vocabulary: string;
  /** sha256 of the vocabulary file, as written. */
  vocabulary_sha256: string;
  grammars: { spec: GrammarSpec; file: string; sha256: string }[];
}

/** The loaded artifacts, for Engine.create. */
export interface CompiledArtifacts {
  vocabularyTables: Uint8Array;
  grammars: { spec: GrammarSpec; artifact: Uint8Array }[];
}

/** sha256 of the GGUF's bytes up to its tensor data: a vocabulary change changes it. */
export async function ggufHeaderHash(ggufPath: string): Promise<string> {
  const { dataOffset } = await readGGUF(ggufPath);
  const handle = await open(ggufPath, 'r');
  try {
    const bytes = Buffer.alloc(dataOffset);
    await handle.read(bytes, 0, dataOffset, 0);
    return sha256Of(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * The vocabulary's token sets a tool-call grammar of this family needs whatever the tools (the
 * free text before a call, the inside of a JSON string; tokensWithin), made by compiling the
 * family's grammar for one generic tool. Only the sets are kept: every mask of a real request's
 * grammar depends on its tools (README, `lmforge compile`), so none of this grammar's would serve.
 */
export function buildToolCallTokenSets(vocabulary: TokenizerInfo, toolFormat: ToolFormatKey): void {
  const generic = [{ name: 'f', parameters: { type: 'object' } }];
  const compiler = new GrammarCompiler(vocabulary, { cache: false });
  for (const mode of ['auto', 'required'] as const) compiler.compile(Grammar.fromStructuralTag(toolCallTag(TOOL_FORMATS[toolFormat], generic, { mode }, true)), { eager: true });
}

/** Builds the artifacts for the GGUF into `folder`/artifacts; returns their record. */
export async function buildArtifacts(ggufPath: string, folder: string, toolFormat?: ToolFormatKey): Promise<ArtifactsRecord> {
  const vocabulary = await grammarVocabularyFromGGUF(ggufPath);
  const dir = join(folder, ARTIFACTS_DIR);
  await mkdir(dir, { recursive: true });
  // The spec is the one response_format {"type": "json_object"} asks for (response-format.ts).
  const jsonObject = serializeCompiledGrammar(new GrammarCompiler(vocabulary).compile(Grammar.builtinJSONObject({}), { eager: true }));
  await writeAtomically(join(dir, JSON_OBJECT_FILE), jsonObject);
  if (toolFormat) buildToolCallTokenSets(vocabulary, toolFormat);
  // Written last: the tables carry the token sets the compiles above built.
  const tables = vocabulary.toCacheBytes();
  await writeAtomically(join(dir, VOCABULARY_FILE), tables);
  return {
    lmforge_version: LMFORGE_VERSION,
    artifact_format: ARTIFACT_FORMAT_VERSION,
    gguf_header_sha256: await ggufHeaderHash(ggufPath),
    vocabulary_fingerprint: vocabulary.fingerprint,
    vocabulary: `${ARTIFACTS_DIR}/${VOCABULARY_FILE}`,
    vocabulary_sha256: sha256Of(tables),
    grammars: [{ spec: { kind: 'json_object' }, file: `${ARTIFACTS_DIR}/${JSON_OBJECT_FILE}`, sha256: sha256Of(jsonObject) }],
  };
}

/** Why a record cannot serve this GGUF with this lmforge, or undefined when it can. */
export async function staleReason(record: Partial<ArtifactsRecord>, ggufPath: string): Promise<string | undefined> {
  if (record.lmforge_version !== LMFORGE_VERSION) return `made by lmforge ${record.lmforge_version ?? '(unknown)'}, this is ${LMFORGE_VERSION}`;
  if (record.artifact_format !== ARTIFACT_FORMAT_VERSION) return `artifact format ${record.artifact_format ?? '(unknown)'}, this lmforge reads ${ARTIFACT_FORMAT_VERSION}`;
  if (record.gguf_header_sha256 !== (await ggufHeaderHash(ggufPath))) return 'made for another GGUF header (its metadata, the vocabulary among them, changed)';
  return undefined;
}

/**
 * The artifacts' bytes, each checked against the SHA-256 it was written with: a file changed
 * since (edited, truncated, half-copied) would otherwise load and fail requests that rely on it.
 */
export async function readArtifacts(record: ArtifactsRecord, folder: string): Promise<CompiledArtifacts> {
  const checked = async (file: string, sha256: string | undefined): Promise<Uint8Array> => {
    if (typeof sha256 !== 'string') throw new Error(`${file} has no recorded SHA-256 (an earlier lmforge's record)`);
    const bytes = await readFile(join(folder, file)).catch((error: Error) => {
      throw new Error(`${file} cannot be read (${error.message})`);
    });
    if (sha256Of(bytes) !== sha256) throw new Error(`${file} is not the file lmforge compile wrote: its SHA-256 differs`);
    return new Uint8Array(bytes);
  };
  return {
    vocabularyTables: await checked(record.vocabulary, record.vocabulary_sha256),
    grammars: await Promise.all(record.grammars.map(async ({ spec, file, sha256 }) => ({ spec, artifact: await checked(file, sha256) }))),
  };
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function writeAtomically(path: string, data: Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/**
 * The artifacts of a compiled folder for `serve`, with a start-up note: loaded as they are,
 * or rebuilt first (and recorded in lmforge-config.json) when they were made by another
 * lmforge or for another vocabulary, or a file changed since. Undefined artifacts: none
 * recorded, or none usable.
 */
export async function loadCompiledArtifacts(model: { ggufPath: string; folder?: string; config?: Record<string, unknown> }): Promise<{ artifacts?: CompiledArtifacts; note: string }> {
  const record = model.config?.artifacts as Partial<ArtifactsRecord> | undefined;
  if (!model.folder || !model.config || typeof record !== 'object' || record === null) return { note: 'none (compiled at first use; `lmforge compile MODEL` makes them ahead of time)' };
  const folder = model.folder;
  let stale = await staleReason(record, model.ggufPath);
  if (stale === undefined) {
    try {
      return { artifacts: await readArtifacts(record as ArtifactsRecord, folder), note: `loaded from ${folder} (vocabulary tables, json_object grammar with its token masks)` };
    } catch (error) {
      stale = `not usable (${(error as Error).message})`;
    }
  }
  try {
    const toolFormat = typeof model.config.tool_format === 'string' && model.config.tool_format in TOOL_FORMATS ? (model.config.tool_format as ToolFormatKey) : undefined;
    const fresh = await buildArtifacts(model.ggufPath, folder, toolFormat);
    await writeModelConfig(folder, { ...model.config, artifacts: fresh });
    return { artifacts: await readArtifacts(fresh, folder), note: `rebuilt in ${folder}: the ones there were ${stale}` };
  } catch (error) {
    return { note: `not used: they were ${stale}, and rebuilding them failed (${(error as Error).message}); compiled at first use` };
  }
}

/** Writes lmforge-config.json, atomically. */
export async function writeModelConfig(folder: string, config: Record<string, unknown>): Promise<void> {
  await writeAtomically(join(folder, MODEL_CONFIG_FILE), new TextEncoder().encode(`${JSON.stringify(config, null, 2)}\n`));
}
