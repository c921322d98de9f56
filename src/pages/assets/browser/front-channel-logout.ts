/**
 * The script of the page after an RP-initiated logout (src/pages/front-channel-logout.ts),
 * inlined and allowed by its hash: it goes on to the `continue` link once every client's
 * logout frame has loaded, or after 3 s at most.
 */
export {};

const frames = document.querySelectorAll('iframe');
let left = frames.length;
let gone = false;

function goOn(): void {
  const next = document.getElementById('continue');
  if (next instanceof HTMLAnchorElement && !gone) {
    gone = true;
    location.replace(next.href);
  }
}

frames.forEach((frame) => {
  frame.addEventListener('load', () => {
    left -= 1;
    if (left === 0) goOn();
  });
});
setTimeout(goOn, 3000);
