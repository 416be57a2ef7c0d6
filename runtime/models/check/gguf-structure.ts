// The GGUF file itself, as `llama-server --check-tensors` and gguf-dump would see it: the
// header reads to its end, every tensor has a type the pinned llama.cpp knows, and every
// tensor's data lies aligned inside the file without overlapping another's.
import { readGGUF, type GGUFFile } from '../../../compiler/gguf/gguf-file.js';
import { GGML_TYPES, tensorBytes } from '../../../compiler/gguf/ggml-types.js';
import { fail, ok, type CheckLine } from './check-line.js';

const REDOWNLOAD = 'the file is damaged or was cut short: download or convert it again (lmforge pull NAME fetches known models)';

export async function checkGgufStructure(path: string): Promise<{ lines: CheckLine[]; file?: GGUFFile }> {
  let file: GGUFFile;
  try {
    file = await readGGUF(path);
  } catch (error) {
    // Any error here is the file's: a cut-off header, a bad count, not a GGUF at all.
    return { lines: [fail('gguf', (error as Error).message, REDOWNLOAD)] };
  }
  const dataBytes = file.fileSize - file.dataOffset;
  const spans: { name: string; start: number; end: number }[] = [];
  for (const tensor of file.tensors) {
    const type = GGML_TYPES.get(tensor.type);
    if (!type) {
      return { lines: [fail('gguf', `tensor ${tensor.name} has quantisation type ${tensor.type}, which the pinned llama.cpp does not know`, 'requantise the model to a type llama.cpp reads (Q4_K_M, Q8_0, F16, ...) with llama-quantize')], file };
    }
    const bytes = tensorBytes(type, tensor.dims);
    if (bytes === undefined) {
      return { lines: [fail('gguf', `tensor ${tensor.name} (${type.name}, ${tensor.dims.join('x')}) has rows that are not whole ${type.block}-element blocks`, REDOWNLOAD)], file };
    }
    if (tensor.offset % file.alignment !== 0) {
      return { lines: [fail('gguf', `tensor ${tensor.name} starts at data offset ${tensor.offset}, not a multiple of the ${file.alignment}-byte alignment`, REDOWNLOAD)], file };
    }
    if (tensor.offset + bytes > dataBytes) {
      return {
        lines: [fail('gguf', `tensor ${tensor.name} (${type.name}, ${bytes} bytes at data offset ${tensor.offset}) ends past the end of the file: the data holds ${Math.max(0, dataBytes)} bytes`, REDOWNLOAD)],
        file,
      };
    }
    spans.push({ name: tensor.name, start: tensor.offset, end: tensor.offset + bytes });
  }
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) {
      return { lines: [fail('gguf', `tensors ${spans[i - 1]!.name} and ${spans[i]!.name} overlap (wrong offsets)`, REDOWNLOAD)], file };
    }
  }
  const types = [...new Set(file.tensors.map((t) => GGML_TYPES.get(t.type)!.name))].join(', ');
  return { lines: [ok('gguf', `GGUF v${file.version}, ${file.metadata.size} metadata keys, ${file.tensors.length} tensors (${types}), all inside the ${file.fileSize}-byte file`)], file };
}
