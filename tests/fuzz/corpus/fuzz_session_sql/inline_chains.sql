-- Inline chains (frame_inlines), read after each stack's frames: a toolkit header's template
-- inlined into the user's main, plus chains of frames that are in no stack, depths out of order,
-- negative and huge, text in number columns, and one frame with a long chain.
UPDATE frames SET is_user = 1 WHERE kind = 1;
INSERT INTO frame_inlines(frame_id, depth, function, file, line) SELECT id, 0, 'cudaMemcpyToSymbol<float [64]>', '/usr/local/cuda/include/cuda_runtime.h', 1038 FROM frames;
INSERT INTO frame_inlines(frame_id, depth, function, file, line) SELECT id, 1, 'main', '/home/u/main.cu', 61 FROM frames;
INSERT INTO frame_inlines(frame_id, depth, function, file, line) VALUES (999999, 1, 'nowhere', 'x.cu', 1), (1, -5, 'negative', 'n.cu', 2), (1, 9223372036854775807, 'huge', 'h.cu', 3), (2, 7, 'text line', 'y.cu', 'forty');
WITH RECURSIVE d(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM d WHERE n < 600) INSERT INTO frame_inlines(frame_id, depth, function, file, line) SELECT 3, n, 'level', 'deep.cu', n FROM d;
