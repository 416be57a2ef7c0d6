// The model architectures the pinned llama.cpp loads (src/llama-arch.cpp's LLM_ARCH_NAMES of
// the llama.cpp that @node-llama-cpp ships; `clip`, a vision projector loaded by mtmd, left
// out). A GGUF of another architecture fails to load: better said before than at `serve`.
import { ggufValue, type GGUFFile } from '../../../compiler/gguf/gguf-file.js';
import { fail, ok, type CheckLine } from './check-line.js';

export const LLAMA_CPP_ARCHITECTURES: ReadonlySet<string> = new Set([
  'llama', 'llama4', 'deci', 'falcon', 'grok', 'gpt2', 'gptj', 'gptneox',
  'mpt', 'baichuan', 'starcoder', 'refact', 'bert', 'modern-bert', 'nomic-bert', 'nomic-bert-moe',
  'neo-bert', 'jina-bert-v2', 'jina-bert-v3', 'eurobert', 'bloom', 'stablelm', 'qwen', 'qwen2',
  'qwen2moe', 'qwen2vl', 'qwen3', 'qwen3moe', 'qwen3next', 'qwen3vl', 'qwen3vlmoe', 'qwen35',
  'qwen35moe', 'qwen4exp', 'phi2', 'phi3', 'phimoe', 'plamo', 'plamo2', 'plamo3',
  'codeshell', 'orion', 'internlm2', 'minicpm', 'minicpm3', 'gemma', 'gemma2', 'gemma3',
  'gemma3n', 'gemma4', 'gemma4-assistant', 'gemma-embedding', 'starcoder2', 'mamba', 'mamba2', 'maple',
  'jamba', 'falcon-h1', 'xverse', 'command-r', 'cohere2', 'cohere2moe', 'dbrx', 'olmo',
  'olmo2', 'olmoe', 'muse-glimmer', 'openelm', 'arctic', 'deepseek', 'deepseek2', 'deepseek2-ocr',
  'deepseek32', 'deepseek4', 'chatglm', 'glm4', 'glm4moe', 'glm-dsa', 'bitnet', 't5',
  't5encoder', 'jais', 'jais2', 'nemotron', 'nemotron_h', 'nemotron_h_moe', 'exaone', 'exaone4',
  'exaone-moe', 'rwkv6', 'rwkv6qwen2', 'rwkv7', 'arwkv7', 'granite', 'granitemoe', 'granitehybrid',
  'graniteswitch', 'granite_swa', 'chameleon', 'wavtokenizer-dec', 'plm', 'bailingmoe', 'bailingmoe2', 'bailingmoe3',
  'dots1', 'dots3note', 'arcee', 'afmoe', 'laguna', 'ernie4_5', 'ernie4_5-moe', 'hunyuan-moe',
  'hunyuan-dense', 'hunyuan_vl', 'hy_v3', 'hy_v4', 'smollm3', 'gpt-oss', 'lfm2', 'lfm2moe',
  'dream', 'smallthinker', 'llada', 'llada-moe', 'seed_oss', 'grovemoe', 'apertus', 'minimax-01',
  'hrm_text', 'minimax-m2', 'minimax-m3', 'cogvlm', 'rnd1', 'pangu-embedded', 'mistral3', 'eagle3',
  'dflash', 'mistral4', 'paddleocr', 'mimo2', 'step35', 'spark2_5', 'llama-embed', 'maincoder',
  'kimi-linear', 'kimi-k3', 'talkie', 'mellum', 'nanbeige', 'qwen3tts', 'pockettts',
]);

export function checkArchitecture(file: GGUFFile): CheckLine {
  const architecture = ggufValue(file, 'general.architecture');
  if (typeof architecture !== 'string') {
    return fail('architecture', 'the GGUF has no general.architecture', 'convert the model again with llama.cpp\'s convert_hf_to_gguf.py');
  }
  if (!LLAMA_CPP_ARCHITECTURES.has(architecture)) {
    return fail('architecture', `"${architecture}" is not an architecture the pinned llama.cpp loads`, 'use a model of a supported architecture (llama, qwen3, gemma3, ...), or a --model-lib build of llama.cpp that knows it');
  }
  return ok('architecture', `${architecture}, supported by the pinned llama.cpp`);
}
