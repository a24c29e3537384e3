-- Defines :Engram, the <Plug> mappings and the autocommands that start
-- engram for buffers inside a workspace. Everything else loads on first use.
if vim.g.loaded_engram then
  return
end
vim.g.loaded_engram = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_err_writeln('engram: Neovim 0.7 or newer is needed')
  return
end

vim.api.nvim_create_user_command('Engram', function(opts)
  require('engram').command(opts)
end, {
  nargs = '*',
  range = true,
  desc = 'engram: the memory of this workspace',
  complete = function(arglead, cmdline, cursorpos)
    return require('engram').complete(arglead, cmdline, cursorpos)
  end,
})

local group = vim.api.nvim_create_augroup('engram', { clear = true })
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  group = group,
  desc = 'engram: start the workspace server',
  callback = function(ev)
    require('engram').autostart(ev.buf)
  end,
})

-- No default keys: map these to taste, e.g.
--   vim.keymap.set('n', '<leader>mr', '<Plug>(engram-remember)')
local function plug(name, fn)
  vim.keymap.set('n', '<Plug>(engram-' .. name .. ')', fn, { desc = 'engram: ' .. name })
end
plug('remember', function()
  require('engram').remember()
end)
plug('recall', function()
  vim.ui.input({ prompt = 'engram: recall: ' }, function(q)
    if q then
      require('engram').recall(q)
    end
  end)
end)
plug('memories', function()
  require('engram').memories()
end)
plug('hover', function()
  require('engram').hover()
end)
plug('reverify', function()
  require('engram').reverify()
end)
plug('retract', function()
  require('engram').retract()
end)
plug('delegate', function()
  require('engram').delegate()
end)
plug('status', function()
  require('engram').status()
end)
-- In visual mode, remember anchors the selected lines.
vim.keymap.set('x', '<Plug>(engram-remember)', ':Engram remember<CR>', { desc = 'engram: remember the selected lines' })

-- Loaded after start-up (a lazy plugin manager): attach the buffers already open.
if vim.v.vim_did_enter == 1 then
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      require('engram').autostart(bufnr)
    end
  end
end
