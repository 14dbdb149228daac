-- Kernel grids at and past their edges (KernelColumns::blocks, CheckedRow::gridBlocks): negative
-- extents read as no grid, huge ones saturate, and the replay's kernels that fill the GPU
-- (model/whatif/kernel_device_sharing.h) follow each other across streams; the fuzzer starts there.
UPDATE kernels SET grid_x = -1 WHERE id % 5 = 0;
UPDATE kernels SET grid_x = 2147483647, grid_y = 65535, grid_z = 65535 WHERE id % 5 = 1;
UPDATE kernels SET grid_x = 67, grid_y = 1, grid_z = 1 WHERE id % 5 = 2;
UPDATE kernels SET grid_x = 9223372036854775807, grid_y = -9223372036854775808 WHERE id % 5 = 3;
UPDATE devices SET sm_count = 0 WHERE id % 2 = 0;
