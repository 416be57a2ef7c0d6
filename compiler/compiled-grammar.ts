// A compiled grammar: the optimised IR plus the packed automaton. Immutable and shared by every
// matcher of it. With a vocabulary (a later issue) it will also hold the token-mask cache.
import { createHash } from 'node:crypto';
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import type { GrammarIR } from './ir.js';
import { grammarText } from './print.js';

export class CompiledGrammar {
  readonly ir: GrammarIR;
  readonly fsm: GrammarFsm;
  /** sha256 of the optimised grammar's canonical text: the content address of artifacts. */
  readonly hash: string;

  constructor(ir: GrammarIR, fsm: GrammarFsm, hash?: string) {
    this.ir = ir;
    this.fsm = fsm;
    this.hash = hash ?? createHash('sha256').update(grammarText(ir)).digest('hex');
  }

  get numRules(): number {
    return this.fsm.ruleStart.length;
  }

  get numStates(): number {
    return this.fsm.stateRule.length;
  }

  get numEdges(): number {
    return this.fsm.edgeKind.length;
  }

  toString(): string {
    return grammarText(this.ir);
  }
}
