-- The cache folder of fused.ext is yours alone, or nothing is loaded from it. fused runs the
-- libraries it finds there, so the folder and every file read from it are checked as ssh
-- checks a key file (StrictModes): owned by you, writable by nobody else, and not a symlink
-- (lstat's view: a link planted in the cache is refused, not followed). The folders above the
-- cache, up to the root, may also belong to root, and may be writable by others only with the
-- sticky bit (/tmp), where nobody else can rename what they hold; otherwise another user could
-- swap the cache for a folder of theirs between the check and the load. Errors give the
-- reason, the path and the remedy, and name where the folder came from (`cache_dir` or the
-- environment).
local ffi = require 'ffi'
local bit = require 'bit'

local M = {}

-- statx's struct is the same on every architecture (struct stat is not); glibc emulates it
-- where the kernel lacks it (glibc 2.28 and later have it).
pcall(ffi.cdef, [[
struct fused_statx_time { int64_t sec; uint32_t nsec; int32_t reserved; };
struct fused_statx {
  uint32_t mask, blksize; uint64_t attributes; uint32_t nlink, uid, gid; uint16_t mode, spare0;
  uint64_t ino, size, blocks, attributes_mask;
  struct fused_statx_time atime, btime, ctime, mtime;
  uint32_t rdev_major, rdev_minor, dev_major, dev_minor; uint64_t spare2[14];
};
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct fused_statx *buf);
unsigned int geteuid(void);
int mkdir(const char *path, unsigned int mode);
int chmod(const char *path, unsigned int mode);
char *realpath(const char *path, char *resolved);
char *getcwd(char *buf, size_t size);
void free(void *p);
char *strerror(int errnum);
]])
local AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS = -100, 0x100, 0x7ff
local S_IFMT, S_IFDIR, S_IFREG, S_IFLNK, S_ISVTX = 0xf000, 0x4000, 0x8000, 0xa000, 0x200
local KINDS = { [0x1000] = 'a FIFO', [0x2000] = 'a character device', [0x6000] = 'a block device',
                [0xc000] = 'a socket', [S_IFLNK] = 'a symlink', [S_IFDIR] = 'a folder',
                [S_IFREG] = 'a regular file' }

local buf = ffi.new('struct fused_statx')
-- lstat's (or, follow = true, stat's) mode and owner of path; nil and the reason when it fails.
local function status(path, follow)
  if ffi.C.statx(AT_FDCWD, path, follow and 0 or AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, buf) ~= 0 then
    return nil, ffi.string(ffi.C.strerror(ffi.errno()))
  end
  return buf.mode, buf.uid
end

local function octal(mode) return string.format('%04o', bit.band(mode, 0xfff)) end

-- Why path, of this mode and owner, cannot be trusted to hold what only you wrote; nil if it
-- can. kind: S_IFDIR or S_IFREG.
local function distrust(path, mode, uid, kind)
  local what = kind == S_IFDIR and 'folder' or 'file'
  if bit.band(mode, S_IFMT) ~= kind then
    return string.format('%s is %s, not a %s', path, KINDS[bit.band(mode, S_IFMT)] or 'no file',
                         what)
  end
  local me = ffi.C.geteuid()
  if uid ~= me then
    return string.format('%s is owned by another user (uid %d; you are uid %d): remove it or '
                         .. 'choose another cache', path, uid, me)
  end
  if bit.band(mode, 18) ~= 0 then -- 022: group or others may write
    return string.format('%s is writable by %s (mode %s): run chmod go-w %s', path,
                         bit.band(mode, 16) ~= 0 and 'group' .. (bit.band(mode, 2) ~= 0
                         and ' and others' or '') or 'others', octal(mode), path)
  end
end

-- Why a folder above the cache is unsafe, or nil: another user, or write access for others
-- without the sticky bit, lets someone replace what it holds.
local function distrust_parent(path)
  local mode, uid = status(path, true)
  if not mode then return string.format('%s cannot be checked: %s', path, uid) end
  if uid ~= ffi.C.geteuid() and uid ~= 0 then
    return string.format('%s, a folder above the cache, is owned by another user (uid %d): the '
                         .. 'cache must be in folders that only you and root control', path, uid)
  end
  if bit.band(mode, 18) ~= 0 and bit.band(mode, S_ISVTX) == 0 then
    return string.format('%s, a folder above the cache, is writable by others without the '
                         .. 'sticky bit (mode %s): the cache must be in folders that only you '
                         .. 'and root control', path, octal(mode))
  end
end

-- The folders from / down to path (absolute), path excluded.
local function ancestors(path)
  local list, prefix = { '/' }, ''
  for part in path:gmatch('[^/]+') do
    prefix = prefix .. '/' .. part
    list[#list + 1] = prefix
  end
  list[#list] = nil
  return list
end

local function real(path)
  local r = ffi.C.realpath(path, nil)
  if r == nil then return nil end
  local s = ffi.string(r)
  ffi.C.free(r)
  return s
end

-- Creates the folder dir (absolute, normalised) and the levels above it that are missing, each
-- 0700, and checks them: root (dir or a folder above it, where the cache begins) and what is
-- below it as the cache, the folders above root (as given, and as its real path runs) as
-- parents. Raises "fn: origin: why" when the cache cannot be trusted.
function M.folder(fn, origin, root, dir)
  local function refuse(why) error(string.format('%s: %s: %s', fn, origin, why), 0) end
  local path = ancestors(dir)
  path[#path + 1] = dir
  for _, p in ipairs(path) do
    local mode = status(p, true)
    if mode and bit.band(mode, S_IFMT) ~= S_IFDIR then
      refuse(string.format('%s is %s, not a folder', p, KINDS[bit.band(mode, S_IFMT)] or 'no file'))
    end
    if not mode and ffi.C.mkdir(p, tonumber('700', 8)) ~= 0 then
      local err = ffi.errno()
      if not status(p) then -- not made by another process meanwhile
        refuse(string.format('cannot create the cache folder %s: %s', p,
                             ffi.string(ffi.C.strerror(err))))
      end
    end
  end
  for _, p in ipairs(path) do
    local why
    if #p >= #root then
      local mode, uid = status(p)
      why = mode and distrust(p, mode, uid, S_IFDIR) or not mode
        and string.format('%s cannot be checked: %s', p, uid)
    else
      why = distrust_parent(p)
    end
    if why then refuse(why) end
  end
  local resolved = real(root)
  if resolved and resolved ~= root then
    for _, p in ipairs(ancestors(resolved)) do
      local why = distrust_parent(p)
      if why then refuse(why) end
    end
  end
end

function M.absolute(path)
  if path:sub(1, 1) == '/' then return path end
  local cwd = ffi.new('char[4096]')
  return (ffi.C.getcwd(cwd, 4096) ~= nil and ffi.string(cwd) or '.') .. '/' .. path
end

-- The cache's top folder for opts, absolute (a relative '-o...' reaches no compiler as an
-- option), and where it came from, for errors: cache_dir ('' is the default, as unset), else
-- $FUSED_EXT_CACHE, else $XDG_CACHE_HOME/fused/ext (absolute only, as XDG says), else
-- ~/.cache/fused/ext.
function M.root(fn, opts)
  local dir, origin = opts.cache_dir, "option 'cache_dir'"
  -- the compiler's list of what a build read (-MMD) cannot hold a newline
  if dir ~= nil and (type(dir) ~= 'string' or dir:find('[%z\n]')) then
    error(string.format("%s: option 'cache_dir' expected a folder's name, got %s", fn,
                        type(dir) ~= 'string' and type(dir) or dir:find('%z')
                        and 'a string with a NUL byte' or 'a name with a newline'), 0)
  end
  if dir == nil or dir == '' then
    local env, xdg = os.getenv('FUSED_EXT_CACHE'), os.getenv('XDG_CACHE_HOME')
    if env and env ~= '' then
      dir, origin = env, '$FUSED_EXT_CACHE'
    elseif xdg and xdg:sub(1, 1) == '/' then
      dir, origin = xdg .. '/fused/ext', '$XDG_CACHE_HOME'
    else
      dir, origin = (os.getenv('HOME') or '.') .. '/.cache/fused/ext', 'the cache ~/.cache/fused/ext'
    end
  end
  -- one slash between levels, none at the end: folder compares prefixes
  dir = M.absolute(dir):gsub('/+', '/'):gsub('(.)/$', '%1')
  return dir, origin
end

-- The cache's folder for the extension called name, created and checked (folder), and the
-- cache's top folder; fused.cell writes its generated sources there.
function M.extension_folder(fn, opts, name)
  local top, origin = M.root(fn, opts)
  local dir = top == '/' and '/' .. name or top .. '/' .. name
  M.folder(fn, origin, top, dir)
  return dir, top
end

-- Why the file at path cannot be read from the cache (lstat's view), or nil; 'missing' when
-- there is none.
function M.distrust_file(path)
  local mode, uid = status(path)
  if not mode then return 'missing' end
  return distrust(path, mode, uid, S_IFREG)
end

-- Makes a file fused wrote (a compiler's output honours the umask) yours alone: 0600.
function M.private(path) return ffi.C.chmod(path, tonumber('600', 8)) == 0 end

return M
