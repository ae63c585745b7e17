# SPDX-License-Identifier: MIT
# bash completion for mntsnap(1); installed as
# share/bash-completion/completions/mntsnap.
_mntsnap()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		list | stat | save | show | diff | seccomp | ns | watch | supervise | help) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'list stat save show diff seccomp ns watch supervise help --help --version' -- "$cur"))
		return
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W 'list stat save show diff seccomp ns watch supervise' -- "$cur"))
		return
	fi

	local target='--pid -N --task --ns --ns-id'
	local view='-o --output --output-all -J --json -l --list -r --raw -P --pairs -n --noheadings
		-a --ascii -u --notruncate -b --bytes -t --types -O --options -T --target --format
		-M --mountpoint -S --source -R --submounts --real --pseudo --shadowed -A --all
		-U --uniq -f --first-only -i --invert -d --direction -v --nofsroot --tree -D --df
		-y --shell --list-columns --vfs-all -V --version --help'
	local live='-k --kernel -m --mtab -c --canonicalize -C --nocanonicalize'
	# stat PATH is findmnt -T PATH: it refuses what selects other mounts
	# (-R, -i, --shadowed, -M, --tree) or another table (mntsnap stat --help)
	local stat='-o --output --output-all -J --json -l --list -r --raw -P --pairs -n --noheadings
		-a --ascii -u --notruncate -b --bytes -t --types -O --options -T --target --format
		-S --source --real --pseudo -A --all -U --uniq -f --first-only -d --direction
		-v --nofsroot -D --df -y --shell --list-columns --vfs-all -V --version --help
		-k --kernel -c --canonicalize -e --evaluate'
	case $prev in
	--pid | -N | --task)
		COMPREPLY=($(compgen -W "$(ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$cur"))
		return ;;
	--ns | --mountinfo-file | -F | --tab-file | --merge | --save | --policy | --listen | --listener | --audit)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--under | -T | --target | -M | --mountpoint)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--ns-id | --threads | -S | --source | -t | --types | -O | --options | --arch | --caps | --old-prefix | --new-prefix | --count | --timeout)
		return ;;
	--kernel)
		[[ $cmd == seccomp ]] && return ;;
	-d | --direction)
		COMPREPLY=($(compgen -W 'forward backward' -- "$cur"))
		return ;;
	--backend)
		COMPREPLY=($(compgen -W 'auto statmount mountinfo' -- "$cur"))
		return ;;
	--set)
		COMPREPLY=($(compgen -W 'query full' -- "$cur"))
		return ;;
	--format)
		case $cmd in
		seccomp) COMPREPLY=($(compgen -W 'oci docker systemd c' -- "$cur")) ;;
		diff) COMPREPLY=($(compgen -W 'text json' -- "$cur")) ;;
		ns) COMPREPLY=($(compgen -W 'table json' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W 'tree list table json raw pairs mountinfo' -- "$cur")) ;;
		esac
		return ;;
	-o | --output)
		if [[ $cmd == watch ]]; then
			COMPREPLY=($(compgen -W 'ACTION TARGET SOURCE FSTYPE OPTIONS OLD-TARGET OLD-OPTIONS UNIQ-ID CHANGED' -- "$cur"))
			return
		fi
		# comma lists: complete the last name
		local head=${cur%,*} names
		names='TARGET SOURCE FSTYPE OPTIONS VFS-OPTIONS FS-OPTIONS OPT-FIELDS UUID FSROOT MAJ:MIN ID
			PARENT PROPAGATION TID SIZE AVAIL USED USE% FREQ PASSNO SOURCES LABEL PARTLABEL PARTUUID UNIQ-ID UNIQ-PARENT NS-ID PEER-GROUP MASTER
			PROPAGATE-FROM FS-SUBTYPE SB-MAGIC SB-FLAGS ATTR SEC-OPTIONS UIDMAP GIDMAP'
		if [[ $cur == *,* ]]; then
			COMPREPLY=($(compgen -P "$head," -W "$names" -- "${cur##*,}"))
		else
			COMPREPLY=($(compgen -W "$names" -- "$cur"))
		fi
		return ;;
	esac

	local opts
	case $cmd in
	list) opts="$target $view $live -F --tab-file --mountinfo-file --backend --under --threads
		--allow-inconsistent -s --fstab -x --verify --verbose -e --evaluate -p --poll --poll=
		-w --timeout" ;;
	stat) opts="$target $stat" ;;
	save) opts="$target --backend --full --strict --under --allow-inconsistent --no-sync --help" ;;
	show) opts="$view" ;;
	diff) opts="--format -J --json --by-path --ignore-ids --old-prefix --new-prefix --help" ;;
	seccomp) opts="--format --set --arch --caps --merge --errno-enosys --kernel --check --notify-mounts --listener --help" ;;
	ns) opts="--format -J --json --help" ;;
	supervise) opts="--policy --listen --audit --check --help" ;;
	watch) opts="--pid -N --task --ns --ns-id --json -o -n --count --timeout --save --no-settle --pollpri --all-changes --help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _mntsnap mntsnap
