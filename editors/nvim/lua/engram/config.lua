-- Options. Defaults, overridden by the `g:engram` table, overridden by
-- setup(); read each time a server starts, so a change followed by
-- `:Engram restart` takes effect without restarting Neovim.
local M = {}

M.defaults = {
  -- The engram binary: a name looked up on $PATH, or a path.
  path = 'engram',
  -- The whole command line; when nil, { <path>, 'serve' }.
  cmd = nil,
  -- Who memories written from Neovim are recorded as; nil means "human:$USER".
  agent = nil,
  -- A buffer's workspace is the nearest ancestor directory holding one of these.
  root_markers = { '.engram', '.git' },
  -- Start engram for every file buffer inside a workspace.
  autostart = true,
  -- Keep the "2 memories · 1 drifted" code lenses up to date.
  codelens = true,
}

local overrides = {}

function M.set(opts)
  if opts ~= nil and type(opts) ~= 'table' then
    error('engram.setup: expected a table of options, got ' .. type(opts), 2)
  end
  overrides = vim.tbl_extend('force', overrides, opts or {})
end

function M.get()
  local from_g = vim.g.engram
  if type(from_g) ~= 'table' then
    from_g = {}
  end
  return vim.tbl_extend('force', M.defaults, from_g, overrides)
end

-- The binary as an absolute path, or nil and the name that was looked for.
function M.binary(opts)
  opts = opts or M.get()
  local name = opts.cmd and opts.cmd[1] or opts.path
  local found = vim.fn.exepath(vim.fn.expand(name))
  if found == '' then
    return nil, name
  end
  return found, name
end

function M.command(opts, binary)
  if opts.cmd then
    local cmd = vim.deepcopy(opts.cmd)
    cmd[1] = binary
    return cmd
  end
  return { binary, 'serve' }
end

function M.agent(opts)
  opts = opts or M.get()
  if opts.agent and opts.agent ~= '' then
    return opts.agent
  end
  local user = vim.env.USER or vim.env.LOGNAME
  return 'human:' .. ((user and user ~= '') and user or 'unknown')
end

return M
