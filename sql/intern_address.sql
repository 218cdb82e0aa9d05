-- intern_address(resource, address): a frame known only by its address in a
-- resource.  Until symbols arrive it has a func of its own, named '0x' and
-- the address in lowercase hex, in that resource; the frame's
-- implementation is 'address'.
SET search_path = calltree, public;

SELECT intern_address('libfoo.so (build id 1a2b)', 4660) AS a \gset
SELECT intern_address('libfoo.so (build id 1a2b)', 4660) = :a AS same_frame,
       intern_address('libfoo.so (build id 1a2b)', 4661) <> :a AS address_matters,
       intern_address('libbar.so', 4660) <> :a AS resource_matters;
SELECT f.name, f.file, f.resource, fr.address, fr.line, fr.col, fr.implementation
  FROM frame fr JOIN func f ON f.id = fr.func_id WHERE fr.id = :a;

-- addresses are unsigned 64-bit values in a bigint: a kernel address
-- ffffffff9fa00a67 is the negative bigint with the same bits
SELECT intern_address('[kernel.kallsyms]', x'ffffffff9fa00a67'::bigint) AS k,
       intern_address('[kernel.kallsyms]', 0) AS zero \gset
SELECT f.name, f.resource, fr.address, to_hex(fr.address) AS hex
  FROM frame fr JOIN func f ON f.id = fr.func_id WHERE fr.id IN (:k, :zero) ORDER BY fr.id;

-- an address frame is not the frame an importer makes with the symbol
-- known, even after symbolication gives both the same func (see
-- symbolicate.sql): the implementation keeps them apart
SELECT intern_frame(intern_func('0x1234', NULL, 'libfoo.so (build id 1a2b)'), 4660) <> :a AS distinct_from_plain_frame;

-- one row per (resource, address), however often it is interned
SELECT count(*) AS frames FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE f.resource = 'libfoo.so (build id 1a2b)' AND fr.implementation = 'address';

-- NULLs are errors
SELECT intern_address(NULL, 1);
SELECT intern_address('libfoo.so', NULL);
