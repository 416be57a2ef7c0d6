// OpenAI's Predicted Outputs: the request gives the text it expects most of the answer to be
// (a file being edited, a document being rewritten), and its tokens are drafted where the
// output follows them. A cursor walks the prediction beside the output; where the output
// leaves it (an edit), the cursor is lost until the output's last tokens are found in the
// prediction again, nearest to where it was, so that an edit in the middle of a long file
// resumes drafting just after the edit rather than at an earlier copy of the same words.

/** Longest output suffix looked for to find the prediction again; longer matches first. */
const LONGEST_MATCH = 4;
/** A single token re-finds the prediction only this close after where it was lost (common tokens recur). */
const ONE_TOKEN_WINDOW = 16;

export class PredictionCursor {
  /** Index in the prediction of the token expected next, or -1 when the output has left it. */
  private next = 0;
  /** Where the output was last aligned with the prediction (the search for it starts there). */
  private lastAligned = 0;
  /** Output tokens followed so far. */
  private followed = 0;

  constructor(private readonly predicted: readonly number[]) {}

  /**
   * Up to `most` prediction tokens expected after the output, `tokens` from `outputStart` on
   * (the cursor reads only what it has not seen yet), or none where the output left the
   * prediction and has not come back to it.
   */
  draft(tokens: readonly number[], outputStart: number, most: number): number[] {
    this.follow(tokens, outputStart);
    if (this.next < 0 || most <= 0) return [];
    return this.predicted.slice(this.next, this.next + most) as number[];
  }

  private follow(tokens: readonly number[], outputStart: number): void {
    const outputLength = tokens.length - outputStart;
    const seen = this.followed;
    for (let i = outputStart + seen; i < tokens.length; i++) {
      if (this.next >= 0 && this.predicted[this.next] === tokens[i]) {
        this.lastAligned = ++this.next;
      } else {
        this.next = -1;
      }
    }
    this.followed = outputLength;
    if (this.next < 0 && outputLength > seen) {
      this.next = this.refind(tokens, outputLength);
      if (this.next >= 0) this.lastAligned = this.next;
    }
  }

  /** Where the prediction continues after the output's last tokens, nearest to where it was aligned; -1 if nowhere. */
  private refind(tokens: readonly number[], outputLength: number): number {
    const predicted = this.predicted;
    for (let n = Math.min(LONGEST_MATCH, outputLength); n >= 1; n--) {
      const suffix = tokens.length - n;
      let best = -1;
      for (let end = n; end <= predicted.length; end++) {
        if (n === 1 && (end < this.lastAligned || end > this.lastAligned + ONE_TOKEN_WINDOW)) continue;
        let k = 0;
        while (k < n && predicted[end - n + k] === tokens[suffix + k]) k++;
        if (k < n) continue;
        if (best < 0 || distance(end, this.lastAligned) < distance(best, this.lastAligned)) best = end;
      }
      // A match at the prediction's very end leaves nothing to draft, but the output is aligned again.
      if (best >= 0) return best;
    }
    return -1;
  }
}

/** Forward distance first: an edit is usually followed by the prediction's next part, not an earlier one. */
function distance(end: number, aligned: number): number {
  return end >= aligned ? end - aligned : 2 * (aligned - end);
}
