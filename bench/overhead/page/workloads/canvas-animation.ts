/**
 * Workload `canvas-animation`: a canvas redrawn on every animation frame beside elements under CSS animations. "Play"
 * runs `FRAMES` frames (a fixed count, so every variant draws the same): 200 particles drawn as circles, drifting
 * towards the mouse (a `mousemove` listener on the canvas), and every 30 frames a status text updated and a class
 * toggled on the animated tiles (their animation changes). 40 tiles spin and pulse by CSS keyframes throughout.
 */
import { element, frame, noise, type StartWorkload } from '../kit';

export const FRAMES = 240;
const PARTICLES = 200;
const TILES = 40;

const CSS = `
@keyframes spin { to { transform: rotate(360deg); } }
@keyframes pulse { 50% { opacity: 0.3; transform: scale(0.8); } }
.tile { display: inline-block; width: 24px; height: 24px; margin: 2px; background: #48c; animation: spin 1.2s linear infinite; }
.fast .tile { animation: pulse 0.6s ease-in-out infinite; }
`;

export const startCanvasAnimation: StartWorkload = ({ track }) => {
  const style = element('style', {}, CSS);
  const play = element('button', { id: 'play', type: 'button' }, 'Play');
  const status = element('p', { id: 'fps' }, 'stopped');
  const canvas = element('canvas', { id: 'scene', width: '900', height: '400' });
  const tiles = element('div', { id: 'tiles' });
  tiles.append(...Array.from({ length: TILES }, () => element('span', { class: 'tile' })));
  document.head.append(style);
  document.body.append(play, status, canvas, tiles);
  const context = canvas.getContext('2d')!;
  const particles = Array.from({ length: PARTICLES }, (_, i) => ({ x: noise(i) * 900, y: noise(i + 1e4) * 400 }));
  const mouse = { x: 450, y: 200 };
  canvas.addEventListener('mousemove', (event) => {
    mouse.x = event.offsetX;
    mouse.y = event.offsetY;
  });

  play.addEventListener('click', () => {
    void track(async () => {
      const started = performance.now();
      for (let n = 1; n <= FRAMES; n++) {
        await frame();
        context.fillStyle = '#fff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        particles.forEach((p, i) => {
          p.x += (mouse.x - p.x) * 0.02 + (noise(n * PARTICLES + i) - 0.5) * 6;
          p.y += (mouse.y - p.y) * 0.02 + (noise(n * PARTICLES + i + 0.5) - 0.5) * 6;
          context.beginPath();
          context.fillStyle = `hsl(${(i * 7 + n) % 360} 70% 50%)`;
          context.arc(p.x, p.y, 4, 0, Math.PI * 2);
          context.fill();
        });
        if (n % 30 === 0) {
          status.textContent = `${Math.round((n * 1000) / (performance.now() - started))} fps`;
          tiles.classList.toggle('fast');
        }
      }
    });
  });

  return { play, canvas };
};
