// Renders a conversation into prompt text with the model's own Jinja chat template.
import { Template } from '@huggingface/jinja';
import { chatmlTemplate } from './chatml-template.js';

export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
  tool_calls?: { id?: string; type: 'function'; function: { name: string; arguments: Record<string, unknown> | string } }[];
  tool_call_id?: string;
}

export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

export class ChatTemplate {
  private readonly template: Template;
  /** True when the model carried no template and ChatML stands in. */
  readonly isFallback: boolean;
  private openerText: string | undefined;

  constructor(source: string | undefined, private readonly specialTokens: { bos: string; eos: string }) {
    this.isFallback = !source;
    this.template = new Template(source || chatmlTemplate);
  }

  /**
   * What the template adds to open the model's turn ("<|im_start|>assistant\n" in ChatML):
   * the difference between a conversation rendered with and without the generation prompt.
   * Empty when the template adds nothing or will not render the probe.
   */
  get generationPrompt(): string {
    if (this.openerText === undefined) {
      try {
        const probe = [{ role: 'user', content: 'Hello' }];
        const withPrompt = this.render(probe, { addGenerationPrompt: true });
        const without = this.render(probe, { addGenerationPrompt: false });
        this.openerText = withPrompt.startsWith(without) ? withPrompt.slice(without.length) : '';
      } catch {
        this.openerText = '';
      }
    }
    return this.openerText;
  }

  render(messages: TemplateMessage[], options: { addGenerationPrompt?: boolean; tools?: unknown[] } = {}): string {
    try {
      return this.template.render({
        messages,
        add_generation_prompt: options.addGenerationPrompt ?? true,
        bos_token: this.specialTokens.bos,
        eos_token: this.specialTokens.eos,
        ...(options.tools ? { tools: options.tools } : {}),
      });
    } catch (error) {
      // Templates raise on conversations they do not accept (e.g. roles out of order).
      throw new ChatTemplateError(`the model's chat template refused these messages: ${(error as Error).message}`);
    }
  }
}
