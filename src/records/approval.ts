/** What the person answered a device or CIBA request with: their sign-in (src/store/pending-authorizations.ts). */
export interface Approval {
  readonly userId: string;
  readonly sid: string;
  readonly authTime: Date;
  readonly amr: readonly string[];
  /** The acr of the journey walked (CONTRACT.md §8). */
  readonly acr: string;
}
