// Renders a conversation into prompt text with a Jinja chat template (the model's own, or the
// one template-choice.ts picked), adapting it to what the template accepts.
import { Template } from '@huggingface/jinja';
import { LmforgeError } from '../../compiler/lmforge-error.js';
import { mergeToolRuns, type TemplateMessage } from './chat-messages.js';
import { chatmlTemplate } from './chatml-template.js';
import { dropsAnswerLeadingSpace } from './plain-template.js';

/** A conversation the template cannot render: the client's `messages` are at fault. */
export class ChatTemplateError extends LmforgeError {
  override name = 'ChatTemplateError';
  constructor(message: string) {
    super(message, { status: 400, param: 'messages', userFacing: true });
  }
}

interface RenderOptions {
  addGenerationPrompt?: boolean;
  tools?: unknown[];
  /** More variables for the template (a request's chat_template_kwargs); the ones above and the special tokens are set apart from these. */
  variables?: Readonly<Record<string, unknown>>;
}

/** The variables the renderer sets itself, which `variables` may not name. */
export const RENDERER_VARIABLES: readonly string[] = ['messages', 'add_generation_prompt', 'bos_token', 'eos_token', 'tools'];

export class ChatTemplate {
  private readonly template: Template;
  /** True when the model carried no template and ChatML stands in. */
  readonly isFallback: boolean;
  /** The Jinja source conversations are rendered with (ChatML's when the model has none). */
  readonly source: string;
  private openerText: string | undefined;
  private toolRunsRefused: boolean | undefined;

  constructor(
    source: string | undefined,
    private readonly specialTokens: { bos: string; eos: string },
    /** Stop strings this template's turns need besides each request's own (see BuiltinTemplate). */
    readonly stop: readonly string[] = [],
  ) {
    this.isFallback = !source;
    this.source = source || chatmlTemplate;
    this.template = new Template(this.source);
    this.dropsAnswerLeadingSpace = dropsAnswerLeadingSpace(source);
  }

  /** The answer's first space parts it from the turn's label (plain-template.ts): content leaves it out. */
  readonly dropsAnswerLeadingSpace: boolean;

  /**
   * What the template adds to open the model's turn ("<|im_start|>assistant\n" in ChatML):
   * the difference between a conversation rendered with and without the generation prompt.
   * Empty when the template adds nothing or will not render the probe.
   */
  get generationPrompt(): string {
    if (this.openerText === undefined) {
      try {
        const probe = [{ role: 'user', content: 'Hello' }];
        const withPrompt = this.renderAsIs(probe, { addGenerationPrompt: true });
        const without = this.renderAsIs(probe, { addGenerationPrompt: false });
        this.openerText = withPrompt.startsWith(without) ? withPrompt.slice(without.length) : '';
      } catch {
        this.openerText = '';
      }
    }
    return this.openerText;
  }

  /**
   * Whether the template refuses two tool results in a row though it renders one (it demands
   * alternating roles): then each run of results is sent as one message.
   */
  get refusesToolRuns(): boolean {
    if (this.toolRunsRefused === undefined) {
      const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'f', arguments: {} } });
      const asked: TemplateMessage[] = [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: '', tool_calls: [call('a'), call('b')] }];
      const result = (id: string): TemplateMessage => ({ role: 'tool', tool_call_id: id, content: 'ok' });
      this.toolRunsRefused = !this.accepts([...asked, result('a'), result('b')]) && this.accepts([...asked, result('a')]);
    }
    return this.toolRunsRefused;
  }

  /**
   * Why the template cannot render the simplest conversation (one user message), or undefined:
   * one that fails there (a filter the engine lacks, a variable it needs and is not given) would
   * answer every chat request with a 400 that blames the messages.
   */
  trialRenderProblem(): string | undefined {
    try {
      this.renderAsIs([{ role: 'user', content: 'Hello' }], { addGenerationPrompt: true });
      return undefined;
    } catch (error) {
      return (error as Error).message.replace(/^the chat template refused these messages: /, '');
    }
  }

  render(messages: TemplateMessage[], options: RenderOptions = {}): string {
    return this.renderAsIs(this.refusesToolRuns ? mergeToolRuns(messages) : messages, options);
  }

  private accepts(messages: TemplateMessage[]): boolean {
    try {
      this.renderAsIs(messages, { addGenerationPrompt: true });
      return true;
    } catch {
      return false;
    }
  }

  private renderAsIs(messages: TemplateMessage[], options: RenderOptions): string {
    try {
      return this.template.render({
        ...options.variables,
        messages,
        add_generation_prompt: options.addGenerationPrompt ?? true,
        bos_token: this.specialTokens.bos,
        eos_token: this.specialTokens.eos,
        ...(options.tools ? { tools: options.tools } : {}),
      });
    } catch (error) {
      // Templates raise on conversations they do not accept (e.g. roles out of order).
      throw new ChatTemplateError(`the chat template refused these messages: ${(error as Error).message}`);
    }
  }
}
