// A multimodal model's image, audio and video markers, written in its vocabulary as user-defined
// tokens: Gemma 3's <start_of_image> and <end_of_image> (and <image_soft_token>, Gemma 3n's audio
// ones, LLaVA's <image>). The GGUF types a user-defined token as text (llama.cpp writes it out
// even without `special`), but these stand for media lmforge never takes, and Hugging Face's
// tokenizers mark them special, so skip_special_tokens leaves them out as vLLM does.
//
// Only the media names, not every tag-shaped user-defined token: Gemma 3 holds some seventy HTML
// tags that way (<table>, <strong>, </code>), Qwen3 its <think> and <tool_call> (added tokens
// Hugging Face does not mark special), Gemma 4 its <|tool_call>, gpt-oss its <|channel|> (retyped
// by llama.cpp so that it is written out), besides runs of spaces, tabs or newlines: text that
// Hugging Face keeps, and that answers, reasoning and tool calls are written in.

const MEDIA_MARKER = /^<\|?(?:\w+_)?(?:image|audio|video|vision)(?:_\w+)?\|?>$/;

/** Whether a user-defined token with this text marks an image, audio or video (`<start_of_image>`, `<image_soft_token>`, `<|vision_start|>`), not text. */
export const isMediaMarkerText = (text: string): boolean => MEDIA_MARKER.test(text);
